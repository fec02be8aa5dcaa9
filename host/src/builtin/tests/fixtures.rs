//! A second tool source next to the built-ins, standing for plugin and MCP tools, and the
//! wiring every test uses.

use std::sync::Arc;

use async_trait::async_trait;
use maitool_protocol::{
    JsonObject, ProviderType, ToolAvailabilityContext, ToolContentItem, ToolExecutionContext,
    ToolExecutionResult, ToolInvocation, ToolSpec,
};
use serde_json::{Value, json};

use crate::builtin::engine::NewMessage;
use crate::builtin::store::Store;
use crate::builtin::{
    BuiltinConfig, BuiltinToolProvider, Discovery, EngineBridge, StoreEngine, ToolCallExecutor,
};
use crate::provider::{ProviderError, ToolProvider};
use crate::registry::ToolRegistry;

pub(super) const PNG: &[u8] = &[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 4, 2];

/// Plugin-like tools:
/// * `weather` (visible): answers with text.
/// * `translate` (no visibility: deferred): needs a `text` argument.
/// * `secret_admin` (hidden).
/// * `chart` (visible): an image plus a text item, and post-history messages, one of them
///   always with the same id.
#[derive(Debug)]
pub(super) struct PluginTools;

fn spec(name: &str, description: &str, visibility: Option<&str>) -> ToolSpec {
    let mut spec =
        ToolSpec::new(name, description).with_provider("example_plugin", ProviderType::Plugin);
    if let Some(visibility) = visibility {
        spec = spec.with_metadata("visibility", visibility);
    }
    spec
}

#[async_trait]
impl ToolProvider for PluginTools {
    fn provider_name(&self) -> &str {
        "plugin_runtime"
    }

    fn provider_type(&self) -> ProviderType {
        ProviderType::Plugin
    }

    async fn list_tools(
        &self,
        _: &ToolAvailabilityContext,
    ) -> Result<Vec<std::sync::Arc<ToolSpec>>, ProviderError> {
        Ok([
            spec("weather", "Current weather for a city.", Some("visible")),
            spec("translate", "Translate text between languages.", None),
            spec("secret_admin", "Administrative tool.", Some("hidden")),
            spec("chart", "Draw a chart image.", Some("visible")),
        ]
        .into_iter()
        .map(std::sync::Arc::new)
        .collect())
    }

    async fn invoke(
        &self,
        invocation: ToolInvocation,
        ctx: &ToolExecutionContext,
    ) -> Result<ToolExecutionResult, ProviderError> {
        let name = invocation.tool_name.as_str();
        Ok(match name {
            "weather" => ToolExecutionResult::success(name, format!("Sunny in {}", ctx.stream_id)),
            "translate" => match invocation.arguments.get("text").and_then(Value::as_str) {
                Some(text) => ToolExecutionResult::success(name, text.to_uppercase()),
                None => ToolExecutionResult::failure(name, "translate needs `text`"),
            },
            "secret_admin" => ToolExecutionResult::success(name, "done"),
            "chart" => {
                let mut result = ToolExecutionResult::success(name, "")
                    .with_item(
                        ToolContentItem::image(PNG.to_vec(), "image/png").with_name("chart.png"),
                    )
                    .with_item(ToolContentItem::text("A rising line."));
                result.post_history_messages = vec![
                    json!({"message_id": "chart-note", "role": "user", "content": "note"}),
                    json!({"role": "user", "content": "no id"}),
                ];
                result
            }
            other => return Err(ProviderError::ToolNotFound(other.to_owned())),
        })
    }
}

/// Everything wired as the `maitool` binary does, over an in-memory store.
pub(super) struct World {
    pub registry: Arc<ToolRegistry>,
    pub provider: Arc<BuiltinToolProvider>,
    pub engine: Arc<StoreEngine>,
    pub discovery: Arc<Discovery>,
    pub executor: ToolCallExecutor,
    pub store: Store,
}

impl World {
    pub async fn new(config: BuiltinConfig) -> World {
        let store = Store::in_memory().await.unwrap();
        let engine = Arc::new(StoreEngine::new(store.clone()));
        let discovery = Arc::new(Discovery::new());
        let provider = BuiltinToolProvider::new(config, engine.clone(), discovery.clone());
        let registry = Arc::new(ToolRegistry::new());
        registry.register_provider(provider.clone());
        registry.register_provider(Arc::new(PluginTools));
        discovery.attach_registry(&registry);
        let bridge: Arc<dyn EngineBridge> = engine.clone();
        let executor = ToolCallExecutor::new(registry.clone(), bridge);
        World {
            registry,
            provider,
            engine,
            discovery,
            executor,
            store,
        }
    }

    pub async fn say(&self, stream: &str, id: &str, text: &str) {
        self.store
            .append_message(NewMessage {
                message_id: id.into(),
                stream_id: stream.into(),
                sender_id: "u1".into(),
                sender_name: "Alice".into(),
                text: text.into(),
                ..NewMessage::default()
            })
            .await
            .unwrap();
    }

    pub async fn add_emoji(&self) {
        self.store
            .add_emoji(crate::builtin::store::NewEmoji {
                source: "smile".into(),
                data: Some(PNG.to_vec()),
                description: "smiling cat".into(),
                emotions: vec!["happy".into()],
                ..Default::default()
            })
            .await
            .unwrap();
    }
}

pub(super) fn ctx(stream: &str) -> ToolExecutionContext {
    ToolExecutionContext {
        session_id: format!("session-{stream}"),
        stream_id: stream.into(),
        reasoning: "thinking about it".into(),
        is_group_chat: Some(true),
        group_id: "g1".into(),
        user_id: "u1".into(),
        platform: "qq".into(),
        ..ToolExecutionContext::default()
    }
}

pub(super) fn args(value: Value) -> JsonObject {
    match value {
        Value::Object(object) => object,
        other => panic!("arguments must be an object, got {other}"),
    }
}

pub(super) fn names<S: std::borrow::Borrow<ToolSpec>>(specs: &[S]) -> Vec<&str> {
    specs
        .iter()
        .map(|spec| spec.borrow().name.as_str())
        .collect()
}
