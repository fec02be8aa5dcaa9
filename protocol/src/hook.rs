//! Named hooks: MaiBot 1.3's hook catalogue and the vocabulary of hook handlers, shared by the
//! host that dispatches them and the SDKs that declare them.
//!
//! A *hook* is a named point (`maisaka.planner.before_request`, `chat.receive.before_process`,
//! ...) at which whoever runs it hands a map of keyword arguments (*kwargs*) to every handler
//! subscribed to that name. The [`CATALOG`] says, per hook, which kwargs it carries and what
//! its handlers may do: run as blocking or observe handlers, abort the point, change the
//! kwargs. A handler declares its [`HookMode`], [`HookOrder`], [`HookErrorPolicy`] and
//! timeout; on the wire it is a component of type `HOOK_HANDLER` with those values in its
//! metadata, invoked with `plugin.invoke_hook`, and answers a [`HookResponse`].
//!
//! ```
//! use maitool_protocol::hook::{self, HookMode, HookOrder};
//!
//! let planner = hook::spec("maisaka.planner.before_request").unwrap();
//! assert!(!planner.allow_abort && planner.allow_kwargs_mutation);
//! assert_eq!(planner.default_timeout_ms, 6000);
//! assert!(planner.parameter("tool_definitions").unwrap().required);
//! assert_eq!("OBSERVE".parse::<HookMode>(), Ok(HookMode::Observe));
//! assert_eq!("".parse::<HookOrder>(), Ok(HookOrder::Normal));
//! assert!(hook::spec("heart_fc.cycle_start").is_none());
//! ```

mod catalog;

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use catalog::{CATALOG, HookParameter, HookSpec, spec};

use crate::JsonObject;

/// The component type of a hook handler in a declaration (`ComponentDeclaration::component_type`).
pub const HOOK_HANDLER_TYPE: &str = "HOOK_HANDLER";

/// The kwarg every `plugin.invoke_hook` request carries besides the hook's own: the hook's
/// name, so that one handler can serve several hooks.
pub const HOOK_NAME_ARG: &str = "hook_name";

/// A declared value that is not one of the names of its kind.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind} must be one of {expected}, got {got:?}")]
pub struct UnknownHookValue {
    /// What was being parsed (`mode`, `order`, `error_policy`, `action`).
    pub kind: &'static str,
    /// The accepted names.
    pub expected: &'static str,
    /// The value as given.
    pub got: String,
}

/// Defines a lowercase-named enum with its default, parsed as MaiBot parses it: trimmed,
/// case-insensitive, empty meaning the default.
macro_rules! named_enum {
    (
        $(#[$doc:meta])* $name:ident, $kind:literal, default $default:ident,
        { $( $(#[$vdoc:meta])* $variant:ident = $text:literal, )* }
    ) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum $name {
            $( $(#[$vdoc])* $variant, )*
        }

        impl $name {
            /// The wire name.
            pub const fn as_str(self) -> &'static str {
                match self { $( $name::$variant => $text, )* }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $name {
            type Err = UnknownHookValue;

            fn from_str(text: &str) -> Result<Self, Self::Err> {
                let normalized = text.trim().to_ascii_lowercase();
                if normalized.is_empty() {
                    return Ok($name::$default);
                }
                match normalized.as_str() {
                    $( $text => Ok($name::$variant), )*
                    _ => Err(UnknownHookValue {
                        kind: $kind,
                        expected: concat!($( $text, " " ),*).trim_ascii_end(),
                        got: text.to_owned(),
                    }),
                }
            }
        }
    };
}

named_enum! {
    /// How a handler takes part in a hook.
    HookMode, "mode", default Blocking, {
        /// Runs in turn, may change the kwargs and abort the point; the point waits for it.
        #[default]
        Blocking = "blocking",
        /// Runs in the background with a copy of the kwargs; what it returns is ignored.
        Observe = "observe",
    }
}

named_enum! {
    /// Where a handler runs among the others of its mode.
    HookOrder, "order", default Normal, {
        /// Before the `normal` ones.
        Early = "early",
        /// The default slot.
        #[default]
        Normal = "normal",
        /// After the `normal` ones.
        Late = "late",
    }
}

named_enum! {
    /// What a failed blocking handler (it raised, timed out, or its runner crashed) does to
    /// the hook.
    HookErrorPolicy, "error_policy", default Skip, {
        /// Aborts the point, as if the handler had answered `abort` (only where the hook
        /// allows aborting).
        Abort = "abort",
        /// The hook goes on to the next handler; the failure is recorded in the result.
        #[default]
        Skip = "skip",
        /// As `skip`, and the host logs the failure as a warning.
        Log = "log",
    }
}

named_enum! {
    /// What a handler asks of the point.
    HookAction, "action", default Continue, {
        /// Go on with the next handler and then the point.
        #[default]
        Continue = "continue",
        /// Stop here: the point does not happen (where the hook allows it).
        Abort = "abort",
    }
}

impl HookMode {
    /// The rank in dispatch order: blocking handlers first.
    pub const fn rank(self) -> u8 {
        match self {
            HookMode::Blocking => 0,
            HookMode::Observe => 1,
        }
    }
}

impl HookOrder {
    /// The rank in dispatch order: early, normal, late.
    pub const fn rank(self) -> u8 {
        match self {
            HookOrder::Early => 0,
            HookOrder::Normal => 1,
            HookOrder::Late => 2,
        }
    }
}

/// The answer to `plugin.invoke_hook`, as MaiBot's runner gives it.
///
/// Every field may be missing: a missing `success` is `true` and a missing `action` is
/// `continue`. `modified_kwargs` replaces the whole kwargs map when present (a handler that
/// changes one key returns the others unchanged); `custom_result` is collected for whoever
/// ran the hook.
///
/// ```
/// use maitool_protocol::hook::{HookAction, HookResponse};
///
/// let answer: HookResponse = serde_json::from_str(r#"{"action": "abort"}"#).unwrap();
/// assert!(answer.success);
/// assert_eq!(answer.action(), Ok(HookAction::Abort));
/// let empty: HookResponse = rmp_serde::from_slice(&rmp_serde::to_vec_named(&serde_json::json!({})).unwrap()).unwrap();
/// assert_eq!(empty, HookResponse::default());
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HookResponse {
    /// False when the handler failed (raised); `error_message` says why.
    pub success: bool,
    /// `continue` or `abort`; anything else is read as `continue`.
    pub action: String,
    /// The kwargs as the handler wants them, replacing the current ones (an object).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modified_kwargs: Option<Value>,
    /// Anything else the handler returns for whoever ran the hook.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub custom_result: Option<Value>,
    /// Why the handler failed.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub error_message: String,
}

impl Default for HookResponse {
    fn default() -> Self {
        Self {
            success: true,
            action: HookAction::Continue.as_str().to_owned(),
            modified_kwargs: None,
            custom_result: None,
            error_message: String::new(),
        }
    }
}

impl HookResponse {
    /// The requested action; an unknown one is an error the caller may read as `continue`.
    pub fn action(&self) -> Result<HookAction, UnknownHookValue> {
        self.action.parse()
    }

    /// The modified kwargs when they are an object; `Err` with the value when they are not.
    pub fn kwargs(&self) -> Result<Option<&JsonObject>, &Value> {
        match &self.modified_kwargs {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Object(map)) => Ok(Some(map)),
            Some(other) => Err(other),
        }
    }
}

#[cfg(test)]
mod tests;
