//! `maitool hook --list`: every hook of MaiBot's catalogue, who runs it under maitool, and
//! the handlers subscribed to it.

use serde::{Deserialize, Serialize};

use crate::app::Host;
use crate::hook::{CATALOG, reach};

/// A subscribed handler, for `maitool hook --list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookHandlerView {
    /// `plugin_id.name`.
    pub full_name: String,
    /// `blocking` or `observe`.
    pub mode: String,
    /// `early`, `normal` or `late`.
    pub order: String,
    /// `abort`, `skip` or `log`.
    pub error_policy: String,
}

/// One hook, for `maitool hook --list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookView {
    /// Its name.
    pub name: String,
    /// What it is for.
    pub description: String,
    /// Who runs it under maitool.
    pub run_by: String,
    /// Whether a handler may abort it.
    pub allow_abort: bool,
    /// Whether a handler may change its kwargs.
    pub allow_kwargs_mutation: bool,
    /// A handler's timeout unless it declares one (0: the runtime's default).
    pub default_timeout_ms: u64,
    /// Its kwargs as a JSON Schema.
    pub parameters_schema: serde_json::Value,
    /// The handlers that run, in dispatch order.
    pub handlers: Vec<HookHandlerView>,
}

/// Every hook, in catalogue order.
pub fn hooks(host: &Host) -> Vec<HookView> {
    let registry = host.plugins.hook_handlers();
    CATALOG
        .iter()
        .map(|spec| HookView {
            name: spec.name.to_owned(),
            description: spec.description.to_owned(),
            run_by: reach(spec.name).describe(),
            allow_abort: spec.allow_abort,
            allow_kwargs_mutation: spec.allow_kwargs_mutation,
            default_timeout_ms: spec.default_timeout_ms,
            parameters_schema: spec.parameters_schema(),
            handlers: registry
                .handlers(spec.name)
                .iter()
                .map(|handler| HookHandlerView {
                    full_name: handler.full_name.clone(),
                    mode: handler.mode.to_string(),
                    order: handler.order.to_string(),
                    error_policy: handler.error_policy.to_string(),
                })
                .collect(),
        })
        .collect()
}
