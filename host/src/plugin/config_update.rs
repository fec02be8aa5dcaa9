//! Delivering a plugin's new configuration to its running runner (`plugin.config_updated`).

use std::time::Duration;

use maitool_protocol::JsonObject;
use maitool_protocol::rpc::RpcPeer;
use maitool_protocol::wire::methods::{ConfigUpdatedPayload, ConfigUpdatedResponse, names};

/// How long a plugin may take to apply a configuration.
const APPLY_LIMIT: Duration = Duration::from_secs(10);

/// Sends `config` (scope `self`) to `plugin_id`; Ok once the plugin applied it, Err with its
/// reason (a refusal, an error response, or no answer) otherwise.
pub(crate) async fn update_config(
    peer: &RpcPeer,
    plugin_id: &str,
    config: &JsonObject,
) -> Result<(), String> {
    let update = ConfigUpdatedPayload {
        plugin_id: plugin_id.to_owned(),
        config_scope: "self".into(),
        config_version: format!("reload-{}", maitool_protocol::wire::now_ms()),
        config_data: config.clone(),
    };
    let answer = peer
        .call::<_, ConfigUpdatedResponse>(names::CONFIG_UPDATED, plugin_id, &update, APPLY_LIMIT)
        .await
        .map_err(|err| err.to_string())?;
    if answer.applied() {
        Ok(())
    } else if answer.reason.is_empty() {
        Err("the plugin did not apply it (no reason given)".into())
    } else {
        Err(answer.reason)
    }
}
