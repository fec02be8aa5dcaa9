//! The capabilities the test host serves: the plugin's key-value store (`kv.*`), `send.*`
//! (captured, never delivered), and any the test adds; each checked against the test's
//! grants first, as the host checks the operator's.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use maitool_protocol::JsonObject;
use maitool_protocol::rpc::RpcError;
use maitool_protocol::wire::ErrorCode;
use parking_lot::Mutex;
use serde_json::{Value, json};

/// A capability the test serves itself (see [`PluginTest::serve`](super::PluginTest::serve)).
pub(crate) type CapabilityFn = dyn Fn(&JsonObject) -> Result<Value, RpcError> + Send + Sync;

/// One message a `send.*` capability was asked to deliver.
#[derive(Debug, Clone, PartialEq)]
pub struct SentMessage {
    /// The capability, e.g. `send.text`.
    pub capability: String,
    /// The stream it was sent to.
    pub stream_id: String,
    /// The `text` argument (empty when there was none).
    pub text: String,
    /// All the arguments, as sent.
    pub args: JsonObject,
}

/// One `cap.call` the plugin made, with the answer it got.
#[derive(Debug, Clone)]
pub struct CapabilityCall {
    /// The capability.
    pub capability: String,
    /// Its arguments.
    pub args: JsonObject,
    /// What the plugin received: the result, or the error (a denial is
    /// `E_CAPABILITY_DENIED`).
    pub outcome: Result<Value, RpcError>,
}

/// The grants, the kv store, the captured messages and the test's own capabilities.
pub(crate) struct Capabilities {
    pub(crate) grants: Vec<String>,
    pub(crate) custom: HashMap<String, Arc<CapabilityFn>>,
    pub(crate) kv: Mutex<BTreeMap<String, Value>>,
    pub(crate) sent: Mutex<Vec<SentMessage>>,
    pub(crate) calls: Mutex<Vec<CapabilityCall>>,
}

impl Capabilities {
    /// Answers one capability call of `plugin_id` and records it.
    pub(crate) fn call(
        &self,
        plugin_id: &str,
        capability: &str,
        args: JsonObject,
    ) -> Result<Value, RpcError> {
        let outcome = self.answer(plugin_id, capability, &args);
        self.calls.lock().push(CapabilityCall {
            capability: capability.to_owned(),
            args,
            outcome: outcome.clone(),
        });
        outcome
    }

    fn answer(
        &self,
        plugin_id: &str,
        capability: &str,
        args: &JsonObject,
    ) -> Result<Value, RpcError> {
        if !grants_admit(&self.grants, capability) {
            // The host's denial, word for word.
            return Err(RpcError::new(
                ErrorCode::CapabilityDenied,
                format!("plugin {plugin_id} is not granted capability {capability}"),
            ));
        }
        if let Some(handler) = self.custom.get(capability) {
            return handler(args);
        }
        let family = capability.split('.').next().unwrap_or(capability);
        match family {
            "kv" => self.kv(capability, args),
            "send" => self.send(capability, args),
            _ => Err(RpcError::new(
                ErrorCode::CapabilityFailed,
                format!(
                    "{capability} failed: the test host does not serve it; give it an answer with PluginTest::serve"
                ),
            )),
        }
    }

    /// `kv.*` as the host serves them: `get` answers the value or `null`, `set` `true`,
    /// `delete` whether the key existed, `list` the keys with `prefix`, sorted.
    fn kv(&self, capability: &str, args: &JsonObject) -> Result<Value, RpcError> {
        let mut kv = self.kv.lock();
        match capability {
            "kv.get" => Ok(kv
                .get(&required_str(capability, args, "key")?)
                .cloned()
                .unwrap_or(Value::Null)),
            "kv.set" => {
                let key = required_str(capability, args, "key")?;
                kv.insert(key, args.get("value").cloned().unwrap_or(Value::Null));
                Ok(Value::Bool(true))
            }
            "kv.delete" => Ok(Value::Bool(
                kv.remove(&required_str(capability, args, "key")?).is_some(),
            )),
            "kv.list" => {
                let prefix = args
                    .get("prefix")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let keys: Vec<&String> = kv.keys().filter(|key| key.starts_with(prefix)).collect();
                Ok(json!(keys))
            }
            _ => Err(RpcError::new(
                ErrorCode::MethodNotAllowed,
                format!("unknown capability {capability}"),
            )),
        }
    }

    /// `send.*`: recorded, answered as the host answers a delivered message.
    fn send(&self, capability: &str, args: &JsonObject) -> Result<Value, RpcError> {
        let stream_id = required_str(capability, args, "stream_id")?;
        let text = if capability == "send.text" {
            required_str(capability, args, "text")?
        } else {
            args.get("text")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let mut sent = self.sent.lock();
        sent.push(SentMessage {
            capability: capability.to_owned(),
            stream_id,
            text,
            args: args.clone(),
        });
        let message_id = format!("test-message-{}", sent.len());
        Ok(json!({ "success": true, "sent": true, "message_id": message_id }))
    }
}

/// A required, non-blank string argument; the host's `E_BAD_PAYLOAD` when missing.
fn required_str(capability: &str, args: &JsonObject, key: &str) -> Result<String, RpcError> {
    match args.get(key) {
        Some(Value::String(text)) if !text.trim().is_empty() => Ok(text.trim().to_owned()),
        Some(Value::Number(number)) => Ok(number.to_string()),
        _ => Err(RpcError::new(
            ErrorCode::BadPayload,
            format!("{capability}: argument `{key}` is required"),
        )),
    }
}

/// Whether the grants admit `capability`, by the host's rule: an exact name, a family
/// (`kv.*`), or `*` (which leaves out the `component.*` family: it acts on other plugins).
pub(crate) fn grants_admit(grants: &[String], capability: &str) -> bool {
    let family = capability.split('.').next().unwrap_or(capability);
    grants.iter().any(|grant| {
        (grant == "*" && family != "component")
            || grant == capability
            || grant.strip_suffix(".*") == Some(family)
    })
}
