//! Host capabilities a plugin can call (`cap.call`), each granted per plugin by the operator.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock, Weak};

use async_trait::async_trait;
use maitool_protocol::rpc::RpcError;
use maitool_protocol::wire::ErrorCode;
use maitool_protocol::{BinaryData, JsonObject, ToolAvailabilityContext};
use parking_lot::{Mutex, RwLock};
use serde::Serialize;
use serde_json::{Value, json};

use super::kv::KvStore;
use crate::registry::ToolRegistry;

/// Every capability this host implements.
pub const CAPABILITIES: &[&str] = &[
    "send.text",
    "send.image",
    "send.emoji",
    "config.get",
    "tool.get_definitions",
    "kv.get",
    "kv.set",
    "kv.delete",
    "kv.list",
];

/// Checks one grant of the configuration: an exact name (`send.text`), a family (`kv.*`) or
/// `*`. A name without a dot is refused with the grant it probably meant, so that a grant
/// never looks broader, or narrower, than what it does.
pub fn check_grant(grant: &str) -> Result<(), String> {
    if grant == "*" || grant.contains('.') {
        return Ok(());
    }
    let family: Vec<&str> = CAPABILITIES
        .iter()
        .copied()
        .filter(|name| name.split('.').next() == Some(grant))
        .collect();
    if family.is_empty() {
        Err(format!(
            "{grant:?} is not a capability: grant an exact name (send.text), a family (kv.*) or \"*\""
        ))
    } else {
        Err(format!(
            "{grant:?} is a capability family, not a capability: grant \"{grant}.*\" for all of it, or name each ({})",
            family.join(", ")
        ))
    }
}

/// A message a plugin sends to a chat stream.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OutgoingMessage {
    /// Target stream.
    pub stream_id: String,
    /// `text`, `image` or `emoji`.
    pub kind: String,
    /// Text of a text message.
    pub text: String,
    /// Bytes of an image or emoji.
    #[serde(skip)]
    pub data: Option<BinaryData>,
    /// MIME type of `data`.
    pub mime_type: String,
    /// The sending plugin.
    pub plugin_id: String,
}

/// Where `send.*` capabilities deliver. The embedding engine provides its own; the `maitool`
/// binary delivers into the built-in store's history so the built-in tools see it.
#[async_trait]
pub trait MessageSink: Send + Sync + 'static {
    /// Delivers a message; returns its message id.
    async fn send(&self, message: OutgoingMessage) -> Result<String, String>;
}

/// A sink that keeps the last messages in memory and logs them; used when nothing else is
/// configured.
#[derive(Debug, Default)]
pub struct MemorySink {
    messages: Mutex<std::collections::VecDeque<OutgoingMessage>>,
    sent: std::sync::atomic::AtomicU64,
}

impl MemorySink {
    const LIMIT: usize = 1000;

    /// Messages sent so far (most recent last, at most 1000).
    pub fn messages(&self) -> Vec<OutgoingMessage> {
        self.messages.lock().iter().cloned().collect()
    }
}

#[async_trait]
impl MessageSink for MemorySink {
    async fn send(&self, message: OutgoingMessage) -> Result<String, String> {
        tracing::info!(stream_id = %message.stream_id, plugin_id = %message.plugin_id, kind = %message.kind, "message sent: {}", message.text);
        let mut messages = self.messages.lock();
        if messages.len() >= Self::LIMIT {
            messages.pop_front();
        }
        messages.push_back(message);
        // Ids stay unique after old messages are dropped.
        let id = self.sent.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        Ok(format!("msg-{id}"))
    }
}

/// The grants and backends behind `cap.call`.
pub struct CapabilityService {
    grants: RwLock<HashMap<String, Vec<String>>>,
    configs: RwLock<HashMap<String, JsonObject>>,
    sink: RwLock<Arc<dyn MessageSink>>,
    kv: KvStore,
    registry: OnceLock<Weak<ToolRegistry>>,
}

impl std::fmt::Debug for CapabilityService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CapabilityService")
            .field("grants", &self.grants)
            .finish_non_exhaustive()
    }
}

impl CapabilityService {
    /// A service with no grants, delivering to `sink`, storing key-values in `kv`.
    pub fn new(sink: Arc<dyn MessageSink>, kv: KvStore) -> Self {
        Self {
            grants: RwLock::new(HashMap::new()),
            configs: RwLock::new(HashMap::new()),
            sink: RwLock::new(sink),
            kv,
            registry: OnceLock::new(),
        }
    }

    /// Replaces where `send.*` deliver.
    pub fn set_sink(&self, sink: Arc<dyn MessageSink>) {
        *self.sink.write() = sink;
    }

    /// Lets `tool.get_definitions` see the unified registry.
    pub fn attach_registry(&self, registry: &Arc<ToolRegistry>) {
        let _ = self.registry.set(Arc::downgrade(registry));
    }

    /// Sets a plugin's grants and configuration (as the operator configured them).
    pub fn configure_plugin(&self, plugin_id: &str, grants: Vec<String>, config: JsonObject) {
        self.grants.write().insert(plugin_id.to_owned(), grants);
        self.configs.write().insert(plugin_id.to_owned(), config);
    }

    /// Whether `plugin_id` may call `capability`: an exact grant, a family grant (`kv.*`), or
    /// `*`. A bare family name (`kv`) grants nothing; [`check_grant`] refuses it in the
    /// configuration.
    pub fn is_granted(&self, plugin_id: &str, capability: &str) -> bool {
        let grants = self.grants.read();
        let Some(list) = grants.get(plugin_id) else {
            return false;
        };
        let family = capability.split('.').next().unwrap_or(capability);
        list.iter().any(|grant| {
            grant == "*" || grant == capability || grant.strip_suffix(".*") == Some(family)
        })
    }

    /// Runs a capability for `plugin_id` (already verified to belong to the calling runner).
    pub async fn call(
        &self,
        plugin_id: &str,
        capability: &str,
        args: &JsonObject,
    ) -> Result<Value, RpcError> {
        if !CAPABILITIES.contains(&capability) {
            return Err(RpcError::new(
                ErrorCode::MethodNotAllowed,
                format!("unknown capability {capability}"),
            ));
        }
        if !self.is_granted(plugin_id, capability) {
            return Err(RpcError::new(
                ErrorCode::CapabilityDenied,
                format!("plugin {plugin_id} is not granted capability {capability}"),
            ));
        }
        let text = |key: &str| {
            args.get(key)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let required = |key: &str| -> Result<String, RpcError> {
            let value = text(key);
            if value.is_empty() {
                Err(RpcError::new(
                    ErrorCode::BadPayload,
                    format!("{capability}: argument `{key}` is required"),
                ))
            } else {
                Ok(value)
            }
        };
        let failed = |err: String| {
            RpcError::new(
                ErrorCode::CapabilityFailed,
                format!("{capability} failed: {err}"),
            )
        };
        match capability {
            "send.text" | "send.image" | "send.emoji" => {
                let kind = capability.trim_start_matches("send.").to_owned();
                let stream_id = required("stream_id")?;
                let (text_value, data) = if kind == "text" {
                    (required("text")?, None)
                } else {
                    let encoded = required("data")?;
                    let data = BinaryData::from_base64(&encoded).map_err(|err| {
                        RpcError::new(
                            ErrorCode::BadPayload,
                            format!("{capability}: `data` is not base64: {err}"),
                        )
                    })?;
                    (text("text"), Some(data))
                };
                let message = OutgoingMessage {
                    stream_id,
                    kind,
                    text: text_value,
                    data,
                    mime_type: text("mime_type"),
                    plugin_id: plugin_id.to_owned(),
                };
                let sink = self.sink.read().clone();
                let message_id = sink.send(message).await.map_err(failed)?;
                Ok(json!({ "success": true, "sent": true, "message_id": message_id }))
            }
            "config.get" => {
                let configs = self.configs.read();
                let config = configs.get(plugin_id).cloned().unwrap_or_default();
                let key = text("key");
                if key.is_empty() {
                    return Ok(Value::Object(config));
                }
                let mut value = Value::Object(config);
                for part in key.split('.') {
                    value = value.get(part).cloned().unwrap_or(Value::Null);
                }
                Ok(value)
            }
            "tool.get_definitions" => {
                let registry = self
                    .registry
                    .get()
                    .and_then(Weak::upgrade)
                    .ok_or_else(|| failed("no tool registry".into()))?;
                let ctx = ToolAvailabilityContext {
                    session_id: text("session_id"),
                    stream_id: text("stream_id"),
                    ..ToolAvailabilityContext::default()
                };
                let tools: Vec<Value> = registry
                    .get_llm_definitions(&ctx)
                    .await
                    .into_iter()
                    .map(|def| json!({ "name": def.name, "definition": def }))
                    .collect();
                Ok(json!({ "success": true, "tools": tools }))
            }
            "kv.get" => Ok(self
                .kv
                .get(plugin_id, &required("key")?)
                .await
                .map_err(failed)?
                .unwrap_or(Value::Null)),
            "kv.set" => {
                let key = required("key")?;
                let value = args.get("value").cloned().unwrap_or(Value::Null);
                self.kv.set(plugin_id, &key, &value).await.map_err(failed)?;
                Ok(Value::Bool(true))
            }
            "kv.delete" => Ok(Value::Bool(
                self.kv
                    .delete(plugin_id, &required("key")?)
                    .await
                    .map_err(failed)?,
            )),
            "kv.list" => Ok(json!(
                self.kv
                    .list(plugin_id, &text("prefix"))
                    .await
                    .map_err(failed)?
            )),
            _ => Err(RpcError::new(
                ErrorCode::MethodNotAllowed,
                format!("unknown capability {capability}"),
            )),
        }
    }
}

#[cfg(test)]
mod grant_tests {
    use std::sync::Arc;

    use super::{CapabilityService, MemorySink, check_grant};
    use crate::plugin::KvStore;

    #[test]
    fn bare_family_names_are_refused_with_the_family_grant_to_use() {
        for grant in ["*", "kv.*", "send.text", "kv.get"] {
            assert_eq!(check_grant(grant), Ok(()), "{grant}");
        }
        assert_eq!(
            check_grant("kv").unwrap_err(),
            "\"kv\" is a capability family, not a capability: grant \"kv.*\" for all of it, or name each (kv.get, kv.set, kv.delete, kv.list)"
        );
        assert_eq!(
            check_grant("send").unwrap_err(),
            "\"send\" is a capability family, not a capability: grant \"send.*\" for all of it, or name each (send.text, send.image, send.emoji)"
        );
        assert_eq!(
            check_grant("everything").unwrap_err(),
            "\"everything\" is not a capability: grant an exact name (send.text), a family (kv.*) or \"*\""
        );
    }

    #[tokio::test]
    async fn only_exact_names_families_with_a_star_and_star_grant() {
        let dir = tempfile::tempdir().unwrap();
        let kv = KvStore::open(&dir.path().join("kv.sqlite3")).await.unwrap();
        let service = CapabilityService::new(Arc::new(MemorySink::default()), kv);
        let grant = |id: &str, grants: &[&str]| {
            let grants = grants.iter().map(|g| (*g).to_owned()).collect();
            service.configure_plugin(id, grants, Default::default());
        };
        grant("bare", &["kv", "send"]);
        grant("family", &["kv.*"]);
        grant("exact", &["send.text"]);
        grant("all", &["*"]);
        assert!(!service.is_granted("bare", "kv.get"));
        assert!(!service.is_granted("bare", "send.text"));
        assert!(service.is_granted("family", "kv.list"));
        assert!(!service.is_granted("family", "send.text"));
        assert!(service.is_granted("exact", "send.text"));
        assert!(!service.is_granted("exact", "send.image"));
        assert!(service.is_granted("all", "config.get"));
        assert!(!service.is_granted("nobody", "kv.get"));
    }
}
