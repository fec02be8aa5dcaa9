//! The chat context of a front request: the command-line defaults, overridden key by key by
//! the request's `_meta`.
//!
//! An MCP client knows nothing about MaiBot's chats, so by default every request runs in the
//! context `maitool serve` was started with (`--mcp-session-id` and friends). A client that
//! does know (an engine bridging several chats through one connection) sets the keys below in
//! a request's `_meta`; each key present replaces the default for that request only.

use maitool_protocol::{JsonObject, ToolExecutionContext};
use serde_json::Value;

/// `_meta` key: the conversation session id (a string; an integer is accepted).
pub const META_SESSION_ID: &str = "maitool/session_id";
/// `_meta` key: the chat stream id (a string; an integer is accepted).
pub const META_STREAM_ID: &str = "maitool/stream_id";
/// `_meta` key: the group id (a string; an integer is accepted).
pub const META_GROUP_ID: &str = "maitool/group_id";
/// `_meta` key: the user id of the other party (a string; an integer is accepted).
pub const META_USER_ID: &str = "maitool/user_id";
/// `_meta` key: the platform, e.g. `qq` (a string).
pub const META_PLATFORM: &str = "maitool/platform";
/// `_meta` key: `true` in a group chat, `false` in a private chat, `null` when unknown.
pub const META_IS_GROUP_CHAT: &str = "maitool/is_group_chat";
/// `_meta` key: the model's reasoning for a call (a string; `tools/call` only).
pub const META_REASONING: &str = "maitool/reasoning";

/// Every `_meta` key the front reads, for documentation and diagnostics.
pub const META_KEYS: [&str; 7] = [
    META_SESSION_ID,
    META_STREAM_ID,
    META_GROUP_ID,
    META_USER_ID,
    META_PLATFORM,
    META_IS_GROUP_CHAT,
    META_REASONING,
];

/// A `_meta` context key with a value of the wrong type. The request is refused with JSON-RPC
/// "invalid params" rather than run in a context the client did not mean.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("_meta key {key} must be {expected}, got {got}")]
pub struct ContextError {
    /// The offending key.
    pub key: &'static str,
    /// What the key takes.
    pub expected: &'static str,
    /// The value received, as JSON.
    pub got: String,
}

/// The execution context of one request: `defaults` with every context key present in `meta`
/// applied. `defaults.metadata` is kept as is.
pub fn request_context(
    defaults: &ToolExecutionContext,
    meta: &JsonObject,
) -> Result<ToolExecutionContext, ContextError> {
    let mut context = defaults.clone();
    let ids = [
        (META_SESSION_ID, &mut context.session_id),
        (META_STREAM_ID, &mut context.stream_id),
        (META_GROUP_ID, &mut context.group_id),
        (META_USER_ID, &mut context.user_id),
    ];
    for (key, field) in ids {
        if let Some(value) = meta.get(key) {
            *field = id_value(key, value)?;
        }
    }
    for (key, field) in [
        (META_PLATFORM, &mut context.platform),
        (META_REASONING, &mut context.reasoning),
    ] {
        if let Some(value) = meta.get(key) {
            *field = value
                .as_str()
                .ok_or_else(|| wrong(key, "a string", value))?
                .to_owned();
        }
    }
    if let Some(value) = meta.get(META_IS_GROUP_CHAT) {
        context.is_group_chat = match value {
            Value::Bool(flag) => Some(*flag),
            Value::Null => None,
            other => return Err(wrong(META_IS_GROUP_CHAT, "true, false or null", other)),
        };
    }
    Ok(context)
}

/// Chat platforms number their groups and users; accept a JSON integer for an id as well.
fn id_value(key: &'static str, value: &Value) -> Result<String, ContextError> {
    match value {
        Value::String(text) => Ok(text.clone()),
        Value::Number(number) if number.is_i64() || number.is_u64() => Ok(number.to_string()),
        other => Err(wrong(key, "a string or an integer", other)),
    }
}

fn wrong(key: &'static str, expected: &'static str, got: &Value) -> ContextError {
    ContextError {
        key,
        expected,
        got: got.to_string(),
    }
}
