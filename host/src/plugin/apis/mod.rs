//! Plugin APIs: the registry of every plugin's APIs keyed as MaiBot keys them
//! (`plugin_id.name@version`, public or private; `entry.rs` one API), how a caller's reference
//! resolves (`resolve.rs`, with the refusal of platform-adapter APIs in `adapter.rs`). A call
//! on the owning plugin's runner is `api_call.rs`.

mod adapter;
mod entry;
mod resolve;

pub use entry::ApiEntry;

use std::sync::Arc;

use foldhash::HashMap;
use maitool_protocol::JsonObject;
use maitool_protocol::wire::methods::ComponentDeclaration;
use parking_lot::RwLock;
use serde_json::Value;

/// MaiBot's reason for a dynamic API its plugin took offline.
pub const DEFAULT_OFFLINE_REASON: &str = "the dynamic API went offline";

/// What `api.replace_dynamic` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DynamicReplaced {
    /// APIs registered (new or replaced).
    pub registered: usize,
    /// Dynamic APIs no longer in the list, now offline.
    pub offlined: usize,
}

/// Every registered plugin's APIs.
#[derive(Debug, Default)]
pub struct ApiRegistry {
    /// By registry key.
    entries: RwLock<HashMap<String, Arc<ApiEntry>>>,
}

impl ApiRegistry {
    /// Replaces `plugin_id`'s APIs with those among `declarations`. A malformed one is left
    /// out with a warning; two with one key keep the last, as in MaiBot.
    pub fn register_plugin(&self, plugin_id: &str, declarations: &[ComponentDeclaration]) {
        let mut fresh = Vec::new();
        for decl in declarations
            .iter()
            .filter(|d| ApiEntry::is_api(&d.component_type))
        {
            match ApiEntry::from_declaration(plugin_id, decl) {
                Ok(entry) => fresh.push(entry),
                Err(reason) => {
                    tracing::warn!(plugin_id, "API not registered: {reason}")
                }
            }
        }
        let mut entries = self.entries.write();
        entries.retain(|_, entry| entry.plugin_id != plugin_id);
        for entry in fresh {
            entries.insert(entry.registry_key.clone(), Arc::new(entry));
        }
    }

    /// Removes `plugin_id`'s APIs.
    pub fn unregister_plugin(&self, plugin_id: &str) {
        self.entries
            .write()
            .retain(|_, entry| entry.plugin_id != plugin_id);
    }

    /// MaiBot's `api.replace_dynamic`: `apis` (declarations `{name, type|component_type,
    /// metadata}`) become `plugin_id`'s dynamic APIs; its dynamic APIs not among them go
    /// offline with `offline_reason`. A malformed list changes nothing and says why.
    pub fn replace_dynamic(
        &self,
        plugin_id: &str,
        apis: &[Value],
        offline_reason: &str,
    ) -> Result<DynamicReplaced, String> {
        let offline_reason = match offline_reason.trim() {
            "" => DEFAULT_OFFLINE_REASON,
            reason => reason,
        };
        let mut wanted = Vec::with_capacity(apis.len());
        for (index, raw) in apis.iter().enumerate() {
            let object = raw
                .as_object()
                .ok_or_else(|| format!("apis[{index}] must be an object"))?;
            let name = object
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .trim();
            if name.is_empty() {
                return Err(format!("apis[{index}] has no name"));
            }
            let kind = object
                .get("component_type")
                .or_else(|| object.get("type"))
                .and_then(Value::as_str)
                .unwrap_or(maitool_protocol::api::API_TYPE);
            if !ApiEntry::is_api(kind) {
                return Err(format!("apis[{index}] is a {kind}, not an API"));
            }
            let mut metadata: JsonObject = object
                .get("metadata")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            metadata.insert("dynamic".into(), Value::Bool(true));
            metadata.remove("offline_reason");
            let entry = ApiEntry::from_parts(plugin_id, name, metadata)
                .map_err(|reason| format!("apis[{index}]: {reason}"))?;
            if wanted
                .iter()
                .any(|w: &ApiEntry| w.registry_key == entry.registry_key)
            {
                return Err(format!(
                    "dynamic API {} is declared twice",
                    entry.registry_key
                ));
            }
            wanted.push(entry);
        }
        let mut entries = self.entries.write();
        for entry in &wanted {
            if entries
                .get(&entry.registry_key)
                .is_some_and(|existing| !existing.dynamic)
            {
                return Err(format!(
                    "a dynamic API cannot replace the static API {}",
                    entry.registry_key
                ));
            }
        }
        let registered = wanted.len();
        let keys: Vec<String> = wanted.iter().map(|e| e.registry_key.clone()).collect();
        for entry in wanted {
            entries.insert(entry.registry_key.clone(), Arc::new(entry));
        }
        let mut offlined = 0;
        for entry in entries.values_mut() {
            if entry.plugin_id == plugin_id
                && entry.dynamic
                && !keys.contains(&entry.registry_key)
                && entry.enabled
            {
                let mut offline = ApiEntry::clone(entry);
                offline.enabled = false;
                offline.offline_reason = offline_reason.to_owned();
                offline
                    .metadata
                    .insert("offline_reason".into(), offline_reason.into());
                *entry = Arc::new(offline);
                offlined += 1;
            }
        }
        Ok(DynamicReplaced {
            registered,
            offlined,
        })
    }

    /// `plugin_id`'s APIs, by name and version.
    pub fn plugin_apis(&self, plugin_id: &str) -> Vec<Arc<ApiEntry>> {
        let mut apis: Vec<Arc<ApiEntry>> = self
            .entries
            .read()
            .values()
            .filter(|entry| entry.plugin_id == plugin_id)
            .cloned()
            .collect();
        apis.sort_by(|a, b| (&a.name, &a.version).cmp(&(&b.name, &b.version)));
        apis
    }

    /// The enabled APIs `caller` may call, filtered by provider, name and version (each
    /// empty: any), sorted by plugin, name and version: MaiBot's `api.list`.
    pub fn list(
        &self,
        caller: &str,
        plugin_id: &str,
        name: &str,
        version: &str,
    ) -> Vec<Arc<ApiEntry>> {
        let mut apis: Vec<Arc<ApiEntry>> = self
            .entries
            .read()
            .values()
            .filter(|entry| {
                entry.enabled
                    && entry.visible_to(caller)
                    && (plugin_id.is_empty() || entry.plugin_id == plugin_id)
                    && (name.is_empty() || entry.name == name)
                    && (version.is_empty() || entry.version == version)
            })
            .cloned()
            .collect();
        apis.sort_by(|a, b| {
            (&a.plugin_id, &a.name, &a.version).cmp(&(&b.plugin_id, &b.name, &b.version))
        });
        apis
    }

    /// An API `name` names (its name, full name or key), for a call of it as a tool.
    pub fn named(&self, name: &str) -> Option<Arc<ApiEntry>> {
        let entries = self.entries.read();
        let mut found: Vec<&Arc<ApiEntry>> = entries
            .values()
            .filter(|e| e.name == name || e.full_name == name || e.registry_key == name)
            .collect();
        found.sort_by(|a, b| a.registry_key.cmp(&b.registry_key));
        found.first().map(|entry| Arc::clone(entry))
    }

    /// The API called `name` (an API's name or full name), any version, visible or not.
    fn matching(&self, name: &str, version: &str) -> Vec<Arc<ApiEntry>> {
        self.entries
            .read()
            .values()
            .filter(|entry| entry.name == name || entry.full_name == name)
            .filter(|entry| version.is_empty() || entry.version == version)
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests;
