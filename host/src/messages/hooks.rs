//! The hook point of the message flow: where MaiBot's named hooks of the receive, command and
//! send paths run.
//!
//! The flow calls [`MessageHooks::run`] at each point below, with MaiBot's hook name and
//! keyword arguments (the message as a MaiBot message dict under `message`, the rest as
//! MaiBot passes them), and continues with the arguments the hooks hand back: a hook may
//! change the message or the other arguments, or abort. The flow itself knows nothing about
//! hook handlers: whoever runs them (the plugin runtime's hook dispatcher) implements this
//! trait and installs it with [`MessageFlow::set_hooks`](super::MessageFlow::set_hooks).
//! Until then [`NoHooks`] lets everything through unchanged.
//!
//! | hook | where | arguments besides `message` | on abort |
//! |---|---|---|---|
//! | `chat.receive.before_process` | a message arrived, before anything else | none | dropped, not stored |
//! | `chat.receive.after_process` | after `on_message_pre_process` | none | dropped, not stored |
//! | `chat.command.before_execute` | a command matched, before it runs | `command_name`, `plugin_id`, `matched_groups` (changes honoured) | the command does not run; the message stops, stored |
//! | `chat.command.after_execute` | the command answered | `command_name`, `plugin_id`, `matched_groups`, `success`, `response`, `intercept_message_level`, `continue_process` (changes honoured) | ignored |
//! | `send_service.before_send` | a plugin sends (`send.*`) | `stream_id`, `typing`, `set_reply`, `reply_message_id`, `storage_message`, `show_log` | not sent |
//! | `send_service.after_build_message` | the outgoing message is built | `stream_id`, `processed_plain_text`, `typing`, `set_reply`, `storage_message`, `show_log` | not sent |
//! | `send_service.after_send` | it was delivered | `sent`, and the before-send arguments | ignored |

use async_trait::async_trait;
use maitool_protocol::JsonObject;
use serde::Serialize;

/// The hook names the flow runs, as constants for implementors.
pub mod names {
    /// A message arrived.
    pub const RECEIVE_BEFORE_PROCESS: &str = "chat.receive.before_process";
    /// A message went through `on_message_pre_process`.
    pub const RECEIVE_AFTER_PROCESS: &str = "chat.receive.after_process";
    /// A command is about to run.
    pub const COMMAND_BEFORE_EXECUTE: &str = "chat.command.before_execute";
    /// A command answered.
    pub const COMMAND_AFTER_EXECUTE: &str = "chat.command.after_execute";
    /// A plugin is about to send a message.
    pub const SEND_BEFORE_SEND: &str = "send_service.before_send";
    /// The outgoing message is built.
    pub const SEND_AFTER_BUILD_MESSAGE: &str = "send_service.after_build_message";
    /// A message was sent.
    pub const SEND_AFTER_SEND: &str = "send_service.after_send";
}

/// What the hooks of one point did.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct HookOutcome {
    /// The keyword arguments after every hook that ran (changed or not).
    pub kwargs: JsonObject,
    /// The hook handler that aborted (`plugin_id.name`), if one did.
    pub aborted_by: Option<String>,
    /// Problems met on the way (a handler that failed and was skipped), for the flow's
    /// report.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
}

impl HookOutcome {
    /// Nothing ran: the arguments go on as they came.
    pub fn unchanged(kwargs: JsonObject) -> Self {
        HookOutcome {
            kwargs,
            aborted_by: None,
            errors: Vec::new(),
        }
    }
}

/// Runs the named hooks of the message flow. Implemented by whatever runs hook handlers; the
/// flow calls it at each point in the table of this module.
///
/// ```
/// use maitool_host::messages::{HookOutcome, MessageHooks};
/// use maitool_protocol::JsonObject;
///
/// /// Aborts every message whose text mentions a password.
/// struct NoSecrets;
///
/// #[async_trait::async_trait]
/// impl MessageHooks for NoSecrets {
///     async fn run(&self, hook: &str, kwargs: JsonObject) -> HookOutcome {
///         let text = kwargs["message"]["processed_plain_text"].as_str().unwrap_or("");
///         let leaks = hook == "chat.receive.before_process" && text.contains("password");
///         HookOutcome {
///             aborted_by: leaks.then(|| "engine.no_secrets".to_owned()),
///             ..HookOutcome::unchanged(kwargs)
///         }
///     }
/// }
/// ```
#[async_trait]
pub trait MessageHooks: Send + Sync + 'static {
    /// Runs every handler of `hook` with `kwargs` and says what they did. Never fails: a
    /// handler that fails is handled by the implementation's own error policy.
    async fn run(&self, hook: &str, kwargs: JsonObject) -> HookOutcome;
}

/// No hook handlers: every point lets the message through unchanged.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoHooks;

#[async_trait]
impl MessageHooks for NoHooks {
    async fn run(&self, _hook: &str, kwargs: JsonObject) -> HookOutcome {
        HookOutcome::unchanged(kwargs)
    }
}
