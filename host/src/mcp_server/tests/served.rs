//! The front served over an in-memory pipe to rmcp's client: pagination, errors, context,
//! progress, cancellation reaching the provider, and `tools/list_changed`.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use maitool_protocol::{
    ProviderType, ToolAvailabilityContext, ToolExecutionContext, ToolExecutionResult,
    ToolInvocation, ToolSpec,
};
use parking_lot::Mutex;
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ErrorCode, Implementation,
    PaginatedRequestParams, ProgressNotificationParam, ProtocolVersion, RequestMetaObject,
};
use rmcp::service::{NotificationContext, RoleClient, RunningService};
use rmcp::{ClientHandler, ServiceError, ServiceExt};
use serde_json::json;
use tokio::sync::mpsc;

use crate::mcp_server::{FrontConfig, McpFront};
use crate::provider::{ProviderError, ToolProvider};
use crate::registry::ToolRegistry;

/// Tools `t0`..`tN`, plus `sleepy` (never finishes; reports when its future is dropped),
/// `nap` (sleeps `ms`) and `context` (returns the execution context it saw).
struct TestProvider {
    name: &'static str,
    count: usize,
    dropped: mpsc::UnboundedSender<String>,
}

struct DropSignal(Option<(mpsc::UnboundedSender<String>, String)>);

impl Drop for DropSignal {
    fn drop(&mut self) {
        if let Some((sender, call_id)) = self.0.take() {
            let _ = sender.send(call_id);
        }
    }
}

#[async_trait]
impl ToolProvider for TestProvider {
    fn provider_name(&self) -> &str {
        self.name
    }

    fn provider_type(&self) -> ProviderType {
        ProviderType::Other("test".into())
    }

    async fn list_tools(
        &self,
        _ctx: &ToolAvailabilityContext,
    ) -> Result<Vec<std::sync::Arc<ToolSpec>>, ProviderError> {
        let mut specs: Vec<ToolSpec> = (0..self.count)
            .map(|i| {
                ToolSpec::new(format!("{}_t{i}", self.name), "a tool")
                    .with_provider(self.name, ProviderType::Other("test".into()))
            })
            .collect();
        for name in ["sleepy", "nap", "context"] {
            specs.push(
                ToolSpec::new(format!("{}_{name}", self.name), name)
                    .with_provider(self.name, ProviderType::Other("test".into())),
            );
        }
        Ok(specs.into_iter().map(std::sync::Arc::new).collect())
    }

    async fn invoke(
        &self,
        invocation: ToolInvocation,
        ctx: &ToolExecutionContext,
    ) -> Result<ToolExecutionResult, ProviderError> {
        let name = invocation.tool_name.clone();
        match name
            .strip_prefix(self.name)
            .and_then(|n| n.strip_prefix('_'))
        {
            Some("sleepy") => {
                let _signal = DropSignal(Some((self.dropped.clone(), invocation.call_id.clone())));
                std::future::pending::<()>().await;
                unreachable!()
            }
            Some("nap") => {
                let ms = invocation
                    .arguments
                    .get("ms")
                    .and_then(|v| v.as_u64())
                    .unwrap_or(0);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                Ok(ToolExecutionResult::success(name, "rested"))
            }
            Some("context") => Ok(
                ToolExecutionResult::success(name, "").with_structured(json!({
                    "session_id": ctx.session_id,
                    "stream_id": ctx.stream_id,
                    "group_id": ctx.group_id,
                    "platform": ctx.platform,
                    "is_group_chat": ctx.is_group_chat,
                    "reasoning": ctx.reasoning,
                    "call_id": invocation.call_id,
                    "invocation_session": invocation.session_id,
                })),
            ),
            _ => Ok(ToolExecutionResult::success(
                name.clone(),
                format!("ran {name}"),
            )),
        }
    }
}

#[derive(Clone, Default)]
struct Recorder {
    list_changed: Arc<Mutex<u32>>,
    progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
}

impl ClientHandler for Recorder {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("front-test", "0"),
        )
        .with_protocol_version(ProtocolVersion::V_2025_11_25)
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        *self.list_changed.lock() += 1;
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.lock().push(params);
    }
}

struct Setup {
    registry: Arc<ToolRegistry>,
    client: RunningService<RoleClient, Recorder>,
    recorder: Recorder,
    dropped: mpsc::UnboundedReceiver<String>,
    _server: tokio::task::JoinHandle<()>,
}

async fn setup(config: FrontConfig) -> Setup {
    let (dropped_tx, dropped) = mpsc::unbounded_channel();
    let registry = Arc::new(ToolRegistry::new());
    registry.register_provider(Arc::new(TestProvider {
        name: "a",
        count: 3,
        dropped: dropped_tx,
    }));
    let front = McpFront::new(registry.clone(), config);
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let server = tokio::spawn(async move {
        let (read, write) = tokio::io::split(server_io);
        if let Ok(running) = front.serve((read, write)).await {
            let _ = running.waiting().await;
        }
    });
    let recorder = Recorder::default();
    let (read, write) = tokio::io::split(client_io);
    let client = recorder
        .clone()
        .serve((read, write))
        .await
        .expect("client connects");
    Setup {
        registry,
        client,
        recorder,
        dropped,
        _server: server,
    }
}

fn config(page_size: usize) -> FrontConfig {
    FrontConfig {
        page_size: Some(page_size),
        ..FrontConfig::default()
    }
}

async fn eventually(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while !check() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn every_page_is_listed_and_a_foreign_cursor_is_invalid_params() {
    let setup = setup(config(2)).await;
    let info = setup.client.peer_info().expect("server info");
    assert!(
        info.capabilities
            .tools
            .as_ref()
            .and_then(|t| t.list_changed)
            .unwrap_or(false)
    );
    assert_eq!(
        info.server_info.as_ref().map(|s| s.name.as_str()),
        Some("maitool")
    );

    let first = setup.client.list_tools(None).await.unwrap();
    assert_eq!(first.tools.len(), 2);
    assert!(first.next_cursor.is_some());
    let all = setup.client.list_all_tools().await.unwrap();
    let names: Vec<_> = all.iter().map(|t| t.name.to_string()).collect();
    assert_eq!(
        names,
        ["a_t0", "a_t1", "a_t2", "a_sleepy", "a_nap", "a_context"]
    );

    let bad = setup
        .client
        .list_tools(Some(
            PaginatedRequestParams::default().with_cursor(Some("garbage".into())),
        ))
        .await
        .unwrap_err();
    match bad {
        ServiceError::McpError(error) => {
            assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
            assert!(
                error.message.contains("invalid tools/list cursor"),
                "{}",
                error.message
            );
        }
        other => panic!("expected invalid params, got {other:?}"),
    }
    // The connection keeps serving after the error.
    assert_eq!(setup.client.list_all_tools().await.unwrap().len(), 6);
}

#[tokio::test]
async fn the_context_comes_from_defaults_and_request_meta() {
    let mut config = config(50);
    config.context.session_id = "default-session".into();
    config.context.platform = "qq".into();
    let setup = setup(config).await;

    let call = |meta: Option<serde_json::Value>| {
        let mut params = CallToolRequestParams::new("a_context");
        if let Some(serde_json::Value::Object(meta)) = meta {
            params.meta = Some(RequestMetaObject(rmcp::model::MetaObject(meta)));
        }
        setup.client.call_tool(params)
    };
    let plain = call(None).await.unwrap();
    let seen = plain.structured_content.unwrap();
    assert_eq!(
        (seen["session_id"].as_str(), seen["platform"].as_str()),
        (Some("default-session"), Some("qq"))
    );
    assert_eq!(seen["invocation_session"], "default-session");
    assert!(seen["call_id"].as_str().unwrap().starts_with("mcp-"));

    let overridden = call(Some(json!({
        "maitool/session_id": "s9",
        "maitool/stream_id": "st9",
        "maitool/group_id": 42,
        "maitool/is_group_chat": true,
        "maitool/reasoning": "testing",
    })))
    .await
    .unwrap();
    let seen = overridden.structured_content.unwrap();
    assert_eq!(
        seen,
        json!({
            "session_id": "s9", "stream_id": "st9", "group_id": "42", "platform": "qq",
            "is_group_chat": true, "reasoning": "testing", "call_id": seen["call_id"], "invocation_session": "s9",
        })
    );

    match call(Some(json!({"maitool/is_group_chat": "yes"})))
        .await
        .unwrap_err()
    {
        ServiceError::McpError(error) => {
            assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
            assert_eq!(
                error.message,
                "_meta key maitool/is_group_chat must be true, false or null, got \"yes\""
            );
        }
        other => panic!("expected invalid params, got {other:?}"),
    }

    let unknown = setup
        .client
        .call_tool(CallToolRequestParams::new("nope"))
        .await
        .unwrap();
    assert_eq!(unknown.is_error, Some(true));
    assert_eq!(
        unknown.content[0].as_text().unwrap().text,
        "tool not found: nope"
    );
}

#[tokio::test]
async fn a_cancelled_call_drops_the_providers_future_and_the_connection_keeps_serving() {
    let mut setup = setup(config(50)).await;
    let started = tokio::time::Instant::now();
    let abandoned = tokio::time::timeout(
        Duration::from_millis(200),
        setup
            .client
            .call_tool(CallToolRequestParams::new("a_sleepy")),
    )
    .await;
    assert!(
        abandoned.is_err(),
        "the sleepy call never finishes on its own"
    );
    // rmcp sent notifications/cancelled; the front dropped the registry's invoke future.
    let call_id = tokio::time::timeout(Duration::from_secs(5), setup.dropped.recv())
        .await
        .expect("the provider's future is dropped after the cancel")
        .unwrap();
    assert!(call_id.starts_with("mcp-"), "{call_id}");
    assert!(started.elapsed() < Duration::from_secs(5));
    let after = setup
        .client
        .call_tool(CallToolRequestParams::new("a_t0"))
        .await
        .unwrap();
    assert_eq!(after.content[0].as_text().unwrap().text, "ran a_t0");
}

#[tokio::test]
async fn a_slow_call_reports_increasing_progress() {
    let mut config = config(50);
    config.progress_interval = Some(Duration::from_millis(40));
    let noisy = setup(config).await;
    let params = CallToolRequestParams::new("a_nap")
        .with_arguments(json!({"ms": 300}).as_object().unwrap().clone());
    let result = noisy.client.call_tool(params).await.unwrap();
    assert_eq!(result.content[0].as_text().unwrap().text, "rested");
    let progress = noisy.recorder.progress.lock().clone();
    assert!(progress.len() >= 3, "{progress:?}");
    assert!(
        progress.windows(2).all(|w| w[0].progress < w[1].progress),
        "{progress:?}"
    );
    assert!(
        progress[0]
            .message
            .as_deref()
            .unwrap()
            .starts_with("a_nap running for")
    );

    // No progress at all when disabled.
    let quiet = setup(FrontConfig {
        progress_interval: None,
        ..FrontConfig::default()
    })
    .await;
    let params = CallToolRequestParams::new("a_nap")
        .with_arguments(json!({"ms": 150}).as_object().unwrap().clone());
    quiet.client.call_tool(params).await.unwrap();
    assert!(quiet.recorder.progress.lock().is_empty());
}

#[tokio::test]
async fn registry_changes_reach_the_client_as_list_changed() {
    let setup = setup(config(50)).await;
    // A round trip after `initialized`, so the server has registered this client.
    assert_eq!(setup.client.list_all_tools().await.unwrap().len(), 6);
    let (tx, _rx) = mpsc::unbounded_channel();
    setup.registry.register_provider(Arc::new(TestProvider {
        name: "b",
        count: 1,
        dropped: tx,
    }));
    let changes = setup.recorder.list_changed.clone();
    eventually("list_changed after a provider was added", || {
        *changes.lock() >= 1
    })
    .await;
    let names: Vec<_> = setup
        .client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    assert!(names.contains(&"b_t0".to_owned()), "{names:?}");

    let before = *changes.lock();
    setup.registry.unregister_provider("b");
    eventually("list_changed after a provider was removed", || {
        *changes.lock() > before
    })
    .await;
    assert_eq!(setup.client.list_all_tools().await.unwrap().len(), 6);
}
