//! The flow's named hooks run by a [`HookInvoker`] (the plugin runtime's hook dispatcher):
//! the plugins' hook handlers of `chat.receive.*`, `chat.command.*` and `send_service.*` take
//! part in every message the flow carries, with MaiBot's semantics (order, modes, error
//! policies, the plugin's circuit breaker).

use std::sync::Arc;

use async_trait::async_trait;
use maitool_protocol::JsonObject;

use super::hooks::{HookOutcome, MessageHooks};
use crate::hook::HookInvoker;

/// [`MessageHooks`] over a [`HookInvoker`]; the host installs it with
/// [`MessageFlow::set_hooks`](super::MessageFlow::set_hooks).
pub struct InvokerHooks {
    invoker: Arc<dyn HookInvoker>,
}

impl std::fmt::Debug for InvokerHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InvokerHooks").finish_non_exhaustive()
    }
}

impl InvokerHooks {
    /// The flow's hooks run by `invoker`.
    pub fn new(invoker: Arc<dyn HookInvoker>) -> Self {
        Self { invoker }
    }
}

#[async_trait]
impl MessageHooks for InvokerHooks {
    async fn run(&self, hook: &str, kwargs: JsonObject) -> HookOutcome {
        // Every point of the flow is in the catalogue; a name that is not would have no
        // handlers either. The flow builds its kwargs itself, so they are not checked
        // against the hook's schema as an engine's or an operator's are.
        let Some(spec) = maitool_protocol::hook::spec(hook) else {
            return HookOutcome::unchanged(kwargs);
        };
        if !self.invoker.has_handlers(spec.name) {
            return HookOutcome::unchanged(kwargs);
        }
        let outcome = self.invoker.invoke(spec, kwargs).await;
        let aborted_by = outcome
            .aborted
            .then(|| outcome.stopped_by.unwrap_or_else(|| spec.name.to_owned()));
        HookOutcome {
            kwargs: outcome.kwargs,
            aborted_by,
            errors: outcome.errors,
        }
    }
}
