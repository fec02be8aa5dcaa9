//! Hook handlers: the registry of every plugin's handlers by hook (`entry.rs` one handler).
//! The dispatcher that runs a hook over them is `hook_dispatch`.

mod entry;

pub use entry::HookHandlerEntry;

use std::sync::Arc;

use foldhash::HashMap;
use maitool_protocol::wire::methods::ComponentDeclaration;
use parking_lot::RwLock;

#[derive(Debug, Default)]
struct Inner {
    /// Each plugin's handlers, runnable or not, in declaration order.
    by_plugin: HashMap<String, Vec<Arc<HookHandlerEntry>>>,
    /// Runnable handlers by hook name, in dispatch order.
    by_hook: HashMap<&'static str, Vec<Arc<HookHandlerEntry>>>,
}

/// Every registered plugin's hook handlers.
#[derive(Debug, Default)]
pub struct HookRegistry {
    inner: RwLock<Inner>,
}

impl HookRegistry {
    /// Replaces `plugin_id`'s handlers with those among `declarations`.
    pub fn register_plugin(&self, plugin_id: &str, declarations: &[ComponentDeclaration]) {
        let entries: Vec<Arc<HookHandlerEntry>> = declarations
            .iter()
            .filter(|decl| HookHandlerEntry::is_hook_handler(decl))
            .map(|decl| Arc::new(HookHandlerEntry::from_declaration(plugin_id, decl)))
            .collect();
        for entry in &entries {
            if let Some(reason) = &entry.refused {
                tracing::warn!(
                    plugin_id,
                    handler = %entry.full_name,
                    "hook handler will never run: {reason}"
                );
            }
        }
        let mut inner = self.inner.write();
        if entries.is_empty() {
            inner.by_plugin.remove(plugin_id);
        } else {
            inner.by_plugin.insert(plugin_id.to_owned(), entries);
        }
        inner.rebuild();
    }

    /// Removes `plugin_id`'s handlers.
    pub fn unregister_plugin(&self, plugin_id: &str) {
        let mut inner = self.inner.write();
        if inner.by_plugin.remove(plugin_id).is_some() {
            inner.rebuild();
        }
    }

    /// Whether some runnable handler subscribes to `hook`.
    pub fn has_handlers(&self, hook: &str) -> bool {
        self.inner.read().by_hook.contains_key(hook)
    }

    /// The runnable handlers of `hook`, in dispatch order.
    pub fn handlers(&self, hook: &str) -> Vec<Arc<HookHandlerEntry>> {
        self.inner
            .read()
            .by_hook
            .get(hook)
            .cloned()
            .unwrap_or_default()
    }

    /// `plugin_id`'s handlers, runnable or not.
    pub fn plugin_handlers(&self, plugin_id: &str) -> Vec<Arc<HookHandlerEntry>> {
        self.inner
            .read()
            .by_plugin
            .get(plugin_id)
            .cloned()
            .unwrap_or_default()
    }

    /// The handler called `name`: a full name, or a bare one that only one plugin uses.
    pub fn find(&self, name: &str) -> Option<Arc<HookHandlerEntry>> {
        let inner = self.inner.read();
        let all = || inner.by_plugin.values().flatten();
        if let Some(entry) = all().find(|entry| entry.full_name == name) {
            return Some(Arc::clone(entry));
        }
        let mut bare = all().filter(|entry| entry.name == name);
        match (bare.next(), bare.next()) {
            (Some(one), None) => Some(Arc::clone(one)),
            _ => None,
        }
    }
}

impl Inner {
    fn rebuild(&mut self) {
        let mut by_hook: HashMap<&'static str, Vec<Arc<HookHandlerEntry>>> = HashMap::default();
        for entry in self.by_plugin.values().flatten() {
            if let (Some(spec), None) = (entry.spec, &entry.refused) {
                by_hook
                    .entry(spec.name)
                    .or_default()
                    .push(Arc::clone(entry));
            }
        }
        for handlers in by_hook.values_mut() {
            handlers.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        }
        self.by_hook = by_hook;
    }
}

#[cfg(test)]
mod tests;
