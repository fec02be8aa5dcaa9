//! One hook handler, read from its declaration and checked against the hook it subscribes to.
//!
//! A declaration that cannot run (an unknown hook, a mode or `error_policy = abort` the hook
//! does not allow, a mode, order or policy value nobody knows) is kept with the reason, shown
//! by `maitool plugins` and never invoked. MaiBot refuses the whole plugin for it instead;
//! here the plugin's other components (its tools) keep working.

use maitool_protocol::JsonObject;
use maitool_protocol::hook::{self, HookErrorPolicy, HookMode, HookOrder, HookSpec};
use maitool_protocol::wire::methods::ComponentDeclaration;
use serde_json::Value;

/// A hook handler of a registered plugin.
#[derive(Debug, Clone, PartialEq)]
pub struct HookHandlerEntry {
    /// `plugin_id.name`.
    pub full_name: String,
    /// The component's name, which `plugin.invoke_hook` names.
    pub name: String,
    /// The owning plugin.
    pub plugin_id: String,
    /// The hook it subscribes to, as declared (trimmed).
    pub hook: String,
    /// Blocking or observe.
    pub mode: HookMode,
    /// Its slot among its mode's handlers.
    pub order: HookOrder,
    /// What its failure does.
    pub error_policy: HookErrorPolicy,
    /// Its own timeout; 0: the hook's, else the runtime's default.
    pub timeout_ms: u64,
    /// The hook's spec, when the handler can run.
    pub spec: Option<&'static HookSpec>,
    /// Why it never runs, when it cannot.
    pub refused: Option<String>,
}

impl HookHandlerEntry {
    /// True for a `HOOK_HANDLER` declaration.
    pub fn is_hook_handler(decl: &ComponentDeclaration) -> bool {
        decl.component_type
            .trim()
            .eq_ignore_ascii_case(hook::HOOK_HANDLER_TYPE)
    }

    /// The entry of `decl`, runnable or with the reason it is not.
    pub fn from_declaration(plugin_id: &str, decl: &ComponentDeclaration) -> Self {
        let name = decl.name.trim().to_owned();
        let meta = &decl.metadata;
        let mut entry = HookHandlerEntry {
            full_name: format!("{plugin_id}.{name}"),
            name,
            plugin_id: plugin_id.to_owned(),
            hook: text(meta, "hook"),
            mode: HookMode::default(),
            order: HookOrder::default(),
            error_policy: HookErrorPolicy::default(),
            timeout_ms: 0,
            spec: None,
            refused: None,
        };
        if let Err(reason) = entry.read(meta) {
            entry.refused = Some(reason);
        }
        entry
    }

    /// Reads the declared values and checks them against the hook.
    fn read(&mut self, meta: &JsonObject) -> Result<(), String> {
        self.mode = text(meta, "mode").parse().map_err(|e| format!("{e}"))?;
        self.order = text(meta, "order").parse().map_err(|e| format!("{e}"))?;
        self.error_policy = text(meta, "error_policy")
            .parse()
            .map_err(|e| format!("{e}"))?;
        self.timeout_ms = match meta.get("timeout_ms") {
            None | Some(Value::Null) => 0,
            Some(value) => value
                .as_u64()
                .ok_or_else(|| format!("timeout_ms must be a non-negative integer, got {value}"))?,
        };
        if self.hook.is_empty() {
            return Err("it names no hook".to_owned());
        }
        let spec = hook::spec(&self.hook).ok_or_else(|| {
            format!(
                "hook {} is not one of MaiBot's hooks (`maitool hook --list` lists them)",
                self.hook
            )
        })?;
        if self.mode == HookMode::Blocking && !spec.allow_blocking {
            return Err(format!("hook {} takes no blocking handlers", spec.name));
        }
        if self.mode == HookMode::Observe && !spec.allow_observe {
            return Err(format!("hook {} takes no observe handlers", spec.name));
        }
        if self.error_policy == HookErrorPolicy::Abort && !spec.allow_abort {
            return Err(format!(
                "error_policy abort: hook {} cannot be aborted",
                spec.name
            ));
        }
        self.spec = Some(spec);
        Ok(())
    }

    /// The timeout of one call: the handler's own, else the hook's, else `default_ms`.
    pub fn timeout_ms(&self, default_ms: u64) -> u64 {
        [
            self.timeout_ms,
            self.spec.map_or(0, |spec| spec.default_timeout_ms),
        ]
        .into_iter()
        .find(|ms| *ms > 0)
        .unwrap_or(default_ms)
    }

    /// MaiBot's dispatch order: blocking before observe, then early, normal, late, then
    /// plugin id and name.
    pub(super) fn sort_key(&self) -> (u8, u8, &str, &str) {
        (
            self.mode.rank(),
            self.order.rank(),
            &self.plugin_id,
            &self.name,
        )
    }

    /// When the handler runs, as a sentence: on its hook, by whom; or never, and why.
    pub fn runs(&self) -> String {
        match (&self.refused, self.spec) {
            (Some(reason), _) => format!("never: {reason}"),
            (None, Some(spec)) => format!(
                "on hook {}: {}",
                spec.name,
                crate::hook::reach(spec.name).describe()
            ),
            (None, None) => "never: it names no hook maitool knows".to_owned(),
        }
    }

    /// How the handler runs, in a line: for `maitool plugins` and a call of it as a tool.
    pub fn describe(&self) -> String {
        match (&self.refused, self.spec) {
            (Some(reason), _) => format!("hook handler that never runs: {reason}"),
            (None, Some(spec)) => {
                let timeout = match self.timeout_ms(0) {
                    0 => "the runtime's hook timeout".to_owned(),
                    ms => format!("timeout {ms} ms"),
                };
                format!(
                    "{} hook handler of {} ({}, error_policy {}, {timeout}); {}",
                    self.mode,
                    spec.name,
                    self.order,
                    self.error_policy,
                    crate::hook::reach(spec.name).describe()
                )
            }
            (None, None) => "hook handler".to_owned(),
        }
    }
}

fn text(meta: &JsonObject, key: &str) -> String {
    match meta.get(key) {
        Some(Value::String(text)) => text.trim().to_owned(),
        _ => String::new(),
    }
}
