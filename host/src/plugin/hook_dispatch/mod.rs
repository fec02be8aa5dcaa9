//! The [`HookDispatcher`]: runs a hook over its handlers with MaiBot's semantics
//! (`host/hook_dispatcher.py`), one call of a handler in `call.rs`:
//!
//! * handlers in order: blocking before observe, early, normal, late, then plugin id and name;
//! * blocking handlers one after another, each given the kwargs as the previous left them;
//!   their `modified_kwargs` replace the kwargs and `abort` stops the hook, where the hook
//!   allows it (otherwise the request is ignored and noted in the outcome's errors);
//! * a failed blocking handler (it raised, timed out, its runner crashed) goes by its
//!   `error_policy`: `abort` stops the hook where aborting is allowed, `skip` and `log` go on
//!   (`log` also warns in the host's log);
//! * observe handlers run in the background with a copy of the kwargs; what they return is
//!   ignored, and they are not started once the hook was aborted;
//! * a plugin whose calls keep timing out or crashing is paused by its circuit breaker, the
//!   same per-plugin breaker as its tool calls (`[plugin_runtime] circuit_*`): its handlers
//!   are skipped with the reason while it is open; a handler of a runner that is not ready
//!   is skipped.
//!
//! Beyond MaiBot: a handler disabled for the session the kwargs name (`session_id`, else
//! `stream_id`) is skipped there, as `maitool disable NAME --session S` says.

use std::sync::Arc;

use async_trait::async_trait;
use maitool_protocol::JsonObject;
use maitool_protocol::hook::{HOOK_NAME_ARG, HookAction, HookErrorPolicy, HookMode, HookSpec};
use serde_json::Value;

mod call;

use self::call::{HandlerRun, call_handler};
use super::hooks::HookHandlerEntry;
use crate::hook::{HookInvoker, HookOutcome};
use crate::plugin::shared::RuntimeShared;

/// The plugin runtime's [`HookInvoker`]: its hook handlers, called over RPC.
#[derive(Clone)]
pub struct HookDispatcher {
    runtime: Arc<RuntimeShared>,
}

impl std::fmt::Debug for HookDispatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HookDispatcher").finish_non_exhaustive()
    }
}

impl HookDispatcher {
    pub(crate) fn new(runtime: Arc<RuntimeShared>) -> Self {
        Self { runtime }
    }

    /// Whether `entry` takes part in this run: enabled, globally and for the session.
    fn takes_part(&self, entry: &HookHandlerEntry, session: Option<&str>) -> bool {
        self.runtime
            .components
            .is_enabled_in_session(&entry.full_name, session)
    }

    async fn run_one(
        &self,
        spec: &'static HookSpec,
        entry: &HookHandlerEntry,
        kwargs: &JsonObject,
    ) -> HandlerRun {
        let timeout_ms = entry.timeout_ms(self.runtime.config.hook_timeout_ms);
        call_handler(&self.runtime, entry, spec.name, kwargs, timeout_ms).await
    }

    /// Starts an observe handler with a copy of the kwargs.
    fn observe(&self, spec: &'static HookSpec, entry: Arc<HookHandlerEntry>, kwargs: JsonObject) {
        let dispatcher = self.clone();
        tokio::spawn(async move {
            match dispatcher.run_one(spec, &entry, &kwargs).await {
                HandlerRun::Answered(response) => {
                    if response.kwargs().is_ok_and(|kwargs| kwargs.is_some()) {
                        tracing::debug!(handler = %entry.full_name, hook = spec.name, "an observe handler returned modified_kwargs: ignored");
                    }
                    if response.action() == Ok(HookAction::Abort) {
                        tracing::warn!(handler = %entry.full_name, hook = spec.name, "an observe handler asked to abort: ignored");
                    }
                }
                HandlerRun::Failed(error) => {
                    tracing::warn!(handler = %entry.full_name, hook = spec.name, "{error}")
                }
                HandlerRun::Skipped(why) => {
                    tracing::debug!(handler = %entry.full_name, hook = spec.name, "{why}")
                }
            }
        });
    }
}

#[async_trait]
impl HookInvoker for HookDispatcher {
    fn has_handlers(&self, hook: &str) -> bool {
        self.runtime.hooks.has_handlers(hook)
    }

    async fn invoke(&self, spec: &'static HookSpec, kwargs: JsonObject) -> HookOutcome {
        let mut outcome = HookOutcome::untouched(spec.name, kwargs);
        let session = session_of(&outcome.kwargs);
        for entry in self.runtime.hooks.handlers(spec.name) {
            if !self.takes_part(&entry, session.as_deref()) {
                continue;
            }
            if entry.mode == HookMode::Observe {
                if spec.allow_observe {
                    outcome.handlers_run += 1;
                    self.observe(spec, entry, outcome.kwargs.clone());
                }
                continue;
            }
            if !spec.allow_blocking {
                outcome.errors.push(format!(
                    "hook {} takes no blocking handlers: {} skipped",
                    spec.name, entry.full_name
                ));
                continue;
            }
            let run = self.run_one(spec, &entry, &outcome.kwargs).await;
            outcome.handlers_run += 1;
            merge(spec, &entry, run, &mut outcome);
            if outcome.aborted {
                break;
            }
        }
        outcome
    }
}

/// The session the kwargs are about, for per-session toggles.
fn session_of(kwargs: &JsonObject) -> Option<String> {
    ["session_id", "stream_id"]
        .into_iter()
        .filter_map(|key| kwargs.get(key).and_then(Value::as_str))
        .find(|id| !id.is_empty())
        .map(str::to_owned)
}

/// Folds one blocking handler's run into the outcome.
fn merge(spec: &HookSpec, entry: &HookHandlerEntry, run: HandlerRun, outcome: &mut HookOutcome) {
    let response = match run {
        HandlerRun::Answered(response) => response,
        HandlerRun::Skipped(why) => {
            tracing::debug!(hook = spec.name, "{why}");
            outcome.errors.push(why);
            return;
        }
        HandlerRun::Failed(error) => {
            apply_error_policy(spec, entry, &error, outcome);
            outcome.errors.push(error);
            return;
        }
    };
    if let Some(custom) = response.custom_result.clone().filter(|v| !v.is_null()) {
        outcome.custom_results.push(custom);
    }
    match response.kwargs() {
        Ok(Some(modified)) if spec.allow_kwargs_mutation => {
            let mut modified = modified.clone();
            // MaiBot hands a handler `hook_name` among its kwargs, and handlers return them
            // all: it is not one of the hook's kwargs, so it does not come back.
            if !outcome.kwargs.contains_key(HOOK_NAME_ARG) {
                modified.remove(HOOK_NAME_ARG);
            }
            outcome.kwargs = modified;
        }
        Ok(Some(_)) => outcome.errors.push(format!(
            "hook {} does not allow changing its kwargs: the modified_kwargs of {} were ignored",
            spec.name, entry.full_name
        )),
        Ok(None) => {}
        Err(other) => outcome.errors.push(format!(
            "{} returned modified_kwargs that are {}, not an object: ignored",
            entry.full_name,
            maitool_protocol::json_kind(other)
        )),
    }
    match response.action() {
        Ok(HookAction::Abort) if spec.allow_abort => {
            tracing::info!(hook = spec.name, handler = %entry.full_name, "a hook handler aborted the hook");
            outcome.aborted = true;
            outcome.stopped_by = Some(entry.full_name.clone());
        }
        Ok(HookAction::Abort) => outcome.errors.push(format!(
            "hook {} cannot be aborted: the abort of {} was ignored",
            spec.name, entry.full_name
        )),
        Ok(HookAction::Continue) => {}
        Err(unknown) => outcome
            .errors
            .push(format!("{}: {unknown}; taken as continue", entry.full_name)),
    }
}

fn apply_error_policy(
    spec: &HookSpec,
    entry: &HookHandlerEntry,
    error: &str,
    outcome: &mut HookOutcome,
) {
    match entry.error_policy {
        HookErrorPolicy::Abort if spec.allow_abort => {
            tracing::warn!(hook = spec.name, handler = %entry.full_name, "the hook is aborted by the handler's error_policy: {error}");
            outcome.aborted = true;
            outcome.stopped_by = Some(entry.full_name.clone());
        }
        // Refused at registration; kept as a skip should a spec ever change under it.
        HookErrorPolicy::Abort | HookErrorPolicy::Skip => {
            tracing::debug!(hook = spec.name, handler = %entry.full_name, "{error}")
        }
        HookErrorPolicy::Log => {
            tracing::warn!(hook = spec.name, handler = %entry.full_name, "{error}")
        }
    }
}

#[cfg(test)]
mod tests;
