//! Named hooks as the host and an embedding engine run them: the [`HookInvoker`] seam, what a
//! dispatch returns ([`HookOutcome`]), where maitool itself runs each hook of MaiBot's
//! catalogue ([`reach`](mod@reach)), and the planner's request hook applied to a session's tool listing
//! ([`offer`]).
//!
//! The plugin runtime implements [`HookInvoker`] (its hook handlers, run over RPC); the
//! registry, the built-in tools and the engine reach it only through the trait, so this module
//! depends on neither.

mod kwargs;
pub mod offer;
pub mod reach;

use async_trait::async_trait;
use maitool_protocol::JsonObject;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use kwargs::check_kwargs;
pub use maitool_protocol::hook::{CATALOG, HookSpec};
pub use reach::{HookReach, reach};

/// Why a hook could not be run at all (handlers failing is not this: see
/// [`HookOutcome::errors`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HookError {
    /// A name MaiBot's catalogue does not have.
    #[error("unknown hook {name:?}: known hooks are {}", known_names())]
    UnknownHook {
        /// The name as given.
        name: String,
    },
    /// Kwargs that break the hook's parameter schema.
    #[error("invalid kwargs for hook {hook}: {violations}")]
    InvalidKwargs {
        /// The hook.
        hook: String,
        /// What is wrong, one violation after another.
        violations: String,
    },
}

fn known_names() -> String {
    CATALOG
        .iter()
        .map(|spec| spec.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The outcome of one run of a hook: MaiBot's `HookDispatchResult`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct HookOutcome {
    /// The hook run.
    pub hook_name: String,
    /// The kwargs after every blocking handler that ran (those given when none changed them).
    pub kwargs: JsonObject,
    /// Whether a handler aborted the point: whoever runs the hook must not go on.
    pub aborted: bool,
    /// The handler (`plugin_id.name`) that aborted it.
    pub stopped_by: Option<String>,
    /// The `custom_result` of each blocking handler that returned one, in order.
    pub custom_results: Vec<Value>,
    /// What went wrong on the way: failed or timed-out handlers, refused aborts and kwargs.
    pub errors: Vec<String>,
    /// How many handlers were run in turn (blocking) and started in the background (observe).
    pub handlers_run: usize,
}

impl HookOutcome {
    /// The outcome of a hook no handler took part in: `kwargs` unchanged.
    pub fn untouched(hook_name: &str, kwargs: JsonObject) -> Self {
        HookOutcome {
            hook_name: hook_name.to_owned(),
            kwargs,
            ..HookOutcome::default()
        }
    }
}

/// What runs named hooks: the plugin runtime's hook handlers.
#[async_trait]
pub trait HookInvoker: Send + Sync + 'static {
    /// Whether some handler may take part in `hook` now; when `false` the caller can skip
    /// building the kwargs. Must be cheap (it is asked on every tool listing).
    fn has_handlers(&self, hook: &str) -> bool;

    /// Runs `hook` with `kwargs` (checked by the caller, see [`check_kwargs`]): the blocking
    /// handlers one after another in MaiBot's order, the observe ones in the background.
    async fn invoke(&self, hook: &'static HookSpec, kwargs: JsonObject) -> HookOutcome;
}

/// Runs the hook `name` through `invoker` after checking `kwargs` against its schema: what an
/// engine, the control socket and `maitool hook` call.
pub async fn run_named(
    invoker: &dyn HookInvoker,
    name: &str,
    kwargs: JsonObject,
) -> Result<HookOutcome, HookError> {
    let spec = maitool_protocol::hook::spec(name).ok_or_else(|| HookError::UnknownHook {
        name: name.to_owned(),
    })?;
    check_kwargs(spec, &kwargs)?;
    Ok(invoker.invoke(spec, kwargs).await)
}

#[cfg(test)]
mod tests;
