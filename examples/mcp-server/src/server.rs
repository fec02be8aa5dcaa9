//! The `ServerHandler`: paginated `tools/list`, the tool calls, and `tools/list_changed`
//! for both eras (unscoped for `initialize` clients, on `subscriptions/listen` streams for
//! 2026-07-28 clients).

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use parking_lot::{Mutex, RwLock};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ProgressNotificationParam,
    ProtocolVersion, ServerCapabilities, ServerConfig, SubscriptionFilter, Tool,
};
use rmcp::service::{
    NotificationContext, RequestContext, RoleServer, SubscriptionContext, SubscriptionSink,
};
use rmcp::{ErrorData, Peer, ServerHandler};
use serde_json::{Value, json};

use crate::tools;

/// Counters of the `slow` tool, reported by `slow_stats`.
#[derive(Debug, Default)]
struct SlowStats {
    started: AtomicU64,
    completed: AtomicU64,
    cancelled: AtomicU64,
}

/// State shared by every connection (one for stdio, one per session over HTTP).
#[derive(Debug)]
pub struct State {
    page_size: usize,
    legacy_only: bool,
    tools: RwLock<Vec<Tool>>,
    legacy_peers: Mutex<Vec<Peer<RoleServer>>>,
    /// Open 2026-07-28 subscriptions, keyed by a local id (request ids repeat across
    /// HTTP sessions).
    sinks: Mutex<Vec<(u64, SubscriptionSink)>>,
    next_sink: AtomicU64,
    slow: SlowStats,
}

impl State {
    /// Fresh state with the base tools (plus `request_headers` over HTTP).
    pub fn new(page_size: usize, legacy_only: bool, http: bool) -> Arc<Self> {
        let mut listed = tools::base_tools();
        if http {
            listed.push(tools::request_headers_tool());
        }
        Arc::new(Self {
            page_size: page_size.max(1),
            legacy_only,
            tools: RwLock::new(listed),
            legacy_peers: Mutex::new(Vec::new()),
            sinks: Mutex::new(Vec::new()),
            next_sink: AtomicU64::new(0),
            slow: SlowStats::default(),
        })
    }

    /// Adds a tool and tells every connected client.
    pub async fn add_tool(&self, tool: Tool) {
        tracing::info!(tool = %tool.name, "adding a tool and sending tools/list_changed");
        self.tools.write().push(tool);
        let peers: Vec<_> = self.legacy_peers.lock().clone();
        for peer in peers {
            if let Err(err) = peer.notify_tool_list_changed().await {
                tracing::debug!("list_changed to a legacy client failed: {err}");
            }
        }
        let sinks: Vec<_> = self
            .sinks
            .lock()
            .iter()
            .map(|(_, sink)| sink.clone())
            .collect();
        for sink in sinks {
            if let Err(err) = sink.notify_tool_list_changed().await {
                tracing::debug!("list_changed on a subscription failed: {err}");
            }
        }
    }
}

/// The handler; cheap to clone, one per connection.
#[derive(Debug, Clone)]
pub struct ExampleServer {
    state: Arc<State>,
}

impl ExampleServer {
    /// A handler over shared state.
    pub fn new(state: Arc<State>) -> Self {
        Self { state }
    }

    async fn slow(&self, args: &JsonObject, ctx: &RequestContext<RoleServer>) -> CallToolResult {
        let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(1000);
        let steps = args
            .get("steps")
            .and_then(Value::as_u64)
            .unwrap_or(10)
            .max(1);
        let stats = &self.state.slow;
        stats.started.fetch_add(1, Ordering::SeqCst);
        let token = ctx.meta.get_progress_token();
        let step_time = Duration::from_millis(ms / steps);
        for step in 1..=steps {
            tokio::select! {
                _ = ctx.ct.cancelled() => {
                    stats.cancelled.fetch_add(1, Ordering::SeqCst);
                    tracing::info!("slow: cancelled after {}/{steps} steps", step - 1);
                    return CallToolResult::error(vec![ContentBlock::text("cancelled")]);
                }
                _ = tokio::time::sleep(step_time) => {}
            }
            if let Some(token) = &token {
                let progress = ProgressNotificationParam::new(token.clone(), step as f64)
                    .with_total(steps as f64)
                    .with_message(format!("step {step}/{steps}"));
                let _ = ctx.peer.notify_progress(progress).await;
            }
        }
        stats.completed.fetch_add(1, Ordering::SeqCst);
        CallToolResult::success(vec![ContentBlock::text(format!(
            "slept {ms} ms in {steps} steps"
        ))])
    }

    fn slow_stats(&self) -> CallToolResult {
        let stats = &self.state.slow;
        CallToolResult::structured(json!({
            "started": stats.started.load(Ordering::SeqCst),
            "completed": stats.completed.load(Ordering::SeqCst),
            "cancelled": stats.cancelled.load(Ordering::SeqCst),
        }))
    }
}

impl ServerHandler for ExampleServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
        .with_server_info(Implementation::new(
            "maitool-example-mcp-server",
            env!("CARGO_PKG_VERSION"),
        ))
        .with_instructions("Demo tools: text, image, audio, structured content, resources, errors.")
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        if self.state.legacy_only {
            Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25))
        } else {
            Cow::Borrowed(ProtocolVersion::KNOWN_VERSIONS)
        }
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let start = match request.and_then(|params| params.cursor) {
            None => 0,
            Some(cursor) => cursor.parse::<usize>().map_err(|_| {
                ErrorData::invalid_params(format!("invalid cursor {cursor:?}"), None)
            })?,
        };
        let tools = self.state.tools.read();
        if start > tools.len() {
            return Err(ErrorData::invalid_params("cursor past the end", None));
        }
        let end = (start + self.state.page_size).min(tools.len());
        let mut result = ListToolsResult::with_all_items(tools[start..end].to_vec());
        if end < tools.len() {
            result.next_cursor = Some(end.to_string());
        }
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.as_ref();
        let known = self.state.tools.read().iter().any(|tool| tool.name == name);
        if !known {
            return Err(ErrorData::invalid_params(
                format!("tool not found: {name}"),
                None,
            ));
        }
        let args = request.arguments.clone().unwrap_or_default();
        let result = match name {
            "echo" | "late_echo" => tools::echo(&args),
            "tiny_image" => tools::tiny_image(),
            "beep" => tools::beep(),
            "weather_report" => tools::weather_report(&args),
            "resource_demo" => tools::resource_demo(),
            "fail" => tools::fail(&args),
            "slow" => self.slow(&args, &context).await,
            "add" => tools::add(&args),
            "slow_stats" => self.slow_stats(),
            "request_headers" => tools::request_headers(context.extensions.get()),
            other => {
                return Err(ErrorData::internal_error(
                    format!("tool {other} is listed but has no implementation"),
                    None,
                ));
            }
        };
        Ok(result.into())
    }

    fn accepted_subscription_filter(
        &self,
        _requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(SubscriptionFilter::builder().tools_list_changed().build())
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let key = self.state.next_sink.fetch_add(1, Ordering::SeqCst);
        self.state.sinks.lock().push((key, context.sink().clone()));
        context.cancelled().await;
        self.state.sinks.lock().retain(|(other, _)| *other != key);
        Ok(())
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        // Only `initialize` clients get here; they receive unscoped list_changed.
        self.state.legacy_peers.lock().push(context.peer);
    }
}
