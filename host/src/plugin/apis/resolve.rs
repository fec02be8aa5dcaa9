//! Which API a caller's reference names, by MaiBot's rules (`_resolve_api_target`): a short
//! name or `plugin_id.name`, with `@version` or a version argument; only APIs visible to the
//! caller (public, or its own) can be called.

use std::sync::Arc;

use maitool_protocol::api::ApiReference;

use super::adapter::AdapterApi;
use super::{ApiEntry, ApiRegistry};

/// Why a reference names no API the caller can call: the `error` of `api.call`'s
/// `{success: false, error}`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApiRefusal {
    /// No name.
    #[error("api_name is required")]
    MissingName,
    /// Several visible APIs match.
    #[error("API {name} is ambiguous ({}): name it as plugin_id.name@version", keys.join(", "))]
    Ambiguous {
        /// The reference.
        name: String,
        /// The matching APIs' keys.
        keys: Vec<String>,
    },
    /// The one matching API is offline.
    #[error("{0}")]
    Unavailable(String),
    /// Only private APIs of other plugins match.
    #[error("API {name} is private to plugin {owner}: other plugins may not call it")]
    Private {
        /// The reference.
        name: String,
        /// The plugin that owns it.
        owner: String,
    },
    /// A platform adapter's API, and no such adapter is loaded.
    #[error("{0}")]
    Adapter(AdapterApi),
    /// Nothing matches.
    #[error("API {name}{} not found (api.list shows the APIs this plugin can call)", version_clause(.version))]
    NotFound {
        /// The reference.
        name: String,
        /// The version asked for.
        version: String,
    },
}

fn version_clause(version: &str) -> String {
    if version.is_empty() {
        String::new()
    } else {
        format!(" with version {version}")
    }
}

impl ApiRegistry {
    /// The API `caller` names with `name` (and `version`, which a `@version` suffix of `name`
    /// gives when empty), or why there is none it can call.
    pub fn resolve(
        &self,
        caller: &str,
        name: &str,
        version: &str,
    ) -> Result<Arc<ApiEntry>, ApiRefusal> {
        let reference = ApiReference::parse(name, version);
        if reference.name.is_empty() {
            return Err(ApiRefusal::MissingName);
        }
        let matching = self.matching(&reference.name, &reference.version);
        let (visible, hidden): (Vec<_>, Vec<_>) = matching
            .into_iter()
            .partition(|entry| entry.visible_to(caller));
        let (enabled, offline): (Vec<_>, Vec<_>) =
            visible.into_iter().partition(|entry| entry.enabled);
        match enabled.as_slice() {
            [one] => return Ok(Arc::clone(one)),
            [] => {}
            many => {
                let mut keys: Vec<String> = many.iter().map(|e| e.registry_key.clone()).collect();
                keys.sort();
                return Err(ApiRefusal::Ambiguous {
                    name: reference.name,
                    keys,
                });
            }
        }
        match offline.as_slice() {
            [one] => return Err(ApiRefusal::Unavailable(one.unavailable())),
            [] => {}
            many => {
                let mut keys: Vec<String> = many.iter().map(|e| e.registry_key.clone()).collect();
                keys.sort();
                return Err(ApiRefusal::Ambiguous {
                    name: reference.name,
                    keys,
                });
            }
        }
        if let Some(private) = hidden.first() {
            return Err(ApiRefusal::Private {
                name: reference.name,
                owner: private.plugin_id.clone(),
            });
        }
        if let Some(adapter) = AdapterApi::of(&reference.name) {
            return Err(ApiRefusal::Adapter(adapter));
        }
        Err(ApiRefusal::NotFound {
            name: reference.name,
            version: reference.version,
        })
    }
}
