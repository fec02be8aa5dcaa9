//! Capabilities MaiBot serves and maitool does not, each answered at once (never left to hang)
//! with a message naming the capability, why maitool does not serve it and what the plugin
//! loses, in the shape MaiBot's own host answers that capability's failure, so that a plugin's
//! own fallback runs:
//!
//! - most of MaiBot's handlers catch their failure and answer `{success: false, error}` inside
//!   a successful reply; the SDK hands that dictionary to the plugin, which checks `success`
//!   (some plugins fall back only on it), so maitool answers the same ([`Shape::Unsuccessful`]);
//! - a few let the failure escape (`market.*`, `webui.claim_upload`, `chat.get_avatar`):
//!   MaiBot's host answers `E_CAPABILITY_FAILED` and the runner raises it to the plugin, so
//!   maitool answers that error ([`Shape::Raised`]);
//! - a name MaiBot's host does not register at all (`gateway.*` are raw host methods there, not
//!   capabilities) is `E_METHOD_NOT_ALLOWED`, as MaiBot answers it ([`Shape::Unregistered`]).

use maitool_protocol::rpc::RpcError;
use maitool_protocol::wire::ErrorCode;
use serde_json::{Value, json};

/// How MaiBot's host answers a failure of the capability, and so how maitool refuses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Shape {
    /// `{success: false, error}` in a successful reply.
    Unsuccessful,
    /// An `E_CAPABILITY_FAILED` error reply, which the runner raises.
    Raised,
    /// An `E_METHOD_NOT_ALLOWED` error reply: MaiBot registers no such capability.
    Unregistered,
}

/// A capability maitool refuses: why, and how the answer is shaped.
#[derive(Debug, Clone, Copy)]
pub(super) struct Refusal {
    pub why: &'static str,
    pub shape: Shape,
}

const fn unsuccessful(why: &'static str) -> Refusal {
    Refusal {
        why,
        shape: Shape::Unsuccessful,
    }
}

const fn raised(why: &'static str) -> Refusal {
    Refusal {
        why,
        shape: Shape::Raised,
    }
}

/// Whole families maitool does not provide.
const FAMILIES: &[(&str, Refusal)] = &[
    (
        "frequency",
        unsuccessful(
            "maitool has no talk-frequency controller; the plugin cannot read or adjust how often the bot speaks",
        ),
    ),
    (
        "statistics",
        unsuccessful(
            "maitool keeps no MaiBot usage statistics; the plugin gets no model, token, message or tool trends",
        ),
    ),
    (
        "market",
        raised("maitool has no plugin market; the plugin cannot search or read market entries"),
    ),
    (
        "webui",
        raised("maitool has no WebUI; the plugin cannot claim uploads made there"),
    ),
    (
        "gateway",
        Refusal {
            why: "maitool has no message gateway; the plugin cannot route messages to a platform",
            shape: Shape::Unregistered,
        },
    ),
];

/// Single capabilities of otherwise served families.
const SINGLE: &[(&str, Refusal)] = &[
    (
        "maisaka.proactive.trigger",
        unsuccessful(
            "maitool runs no Maisaka chat loop to start a proactive round; the engine decides when the bot speaks, so the plugin's own fallback (sending the message itself) applies",
        ),
    ),
    (
        "maisaka.reply.generate",
        unsuccessful(
            "maitool has no persona replyer; the plugin can ask llm.generate for the text instead",
        ),
    ),
    (
        "maisaka.context.resolve_image",
        unsuccessful(
            "maitool keeps no Maisaka context of its own; the plugin can read a message's images with message.get_by_id and include_binary_data",
        ),
    ),
    (
        "chat.get_avatar",
        raised("maitool has no platform adapter to ask for avatars; the plugin gets no avatar"),
    ),
    (
        "llm.transcribe_audio",
        unsuccessful(
            "maitool's [llm] endpoint is chat and embeddings only; the plugin gets no transcript",
        ),
    ),
    (
        "component.load_plugin",
        unsuccessful(
            "plugins are loaded from maitool.toml: add the runner and run `maitool reload`",
        ),
    ),
    (
        "component.unload_plugin",
        unsuccessful(
            "plugins are unloaded through maitool.toml: remove the runner and run `maitool reload`",
        ),
    ),
];

/// Why and how maitool refuses `capability`, if it is one MaiBot serves that maitool does not.
pub(super) fn lookup(capability: &str) -> Option<Refusal> {
    if let Some((_, refusal)) = SINGLE.iter().find(|(name, _)| *name == capability) {
        return Some(*refusal);
    }
    let family = capability.split('.').next().unwrap_or(capability);
    FAMILIES
        .iter()
        .find(|(name, _)| *name == family)
        .map(|(_, refusal)| *refusal)
}

/// The text of a refusal: the capability, that maitool does not provide it, and why.
pub(super) fn message(capability: &str, why: &str) -> String {
    format!("capability {capability} is not provided by maitool: {why}")
}

impl Refusal {
    /// The answer: a `{success: false, error}` value or an error reply, as MaiBot shapes it.
    pub fn answer(self, capability: &str) -> Result<Value, RpcError> {
        let text = message(capability, self.why);
        match self.shape {
            Shape::Unsuccessful => Ok(unsuccessful_value(text)),
            Shape::Raised => Err(RpcError::new(ErrorCode::CapabilityFailed, text)),
            Shape::Unregistered => Err(RpcError::new(ErrorCode::MethodNotAllowed, text)),
        }
    }
}

/// MaiBot's `{success: false, error}`: the SDK hands it to the plugin unchanged.
pub(super) fn unsuccessful_value(error: impl Into<String>) -> Value {
    json!({ "success": false, "error": error.into() })
}
