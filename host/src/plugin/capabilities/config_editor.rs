//! What `component.update_plugin_config` asks of whoever saves plugin configurations (the
//! host's `plugin_config`, which sits above the plugin runtime: the service holds it as this
//! trait, attached once the host runs).

use futures::future::BoxFuture;
use serde_json::Value;

/// Saves and applies a change to a plugin's configuration.
pub trait ConfigEditor: Send + Sync {
    /// Sets `key` (a dotted path) of `plugin_id`'s configuration to `value`, checks the
    /// result against the plugin's schema, saves it and applies it live.
    fn update_key<'a>(
        &'a self,
        plugin_id: &'a str,
        key: &'a str,
        value: Value,
    ) -> BoxFuture<'a, Result<(), Box<dyn std::error::Error + Send + Sync>>>;
}
