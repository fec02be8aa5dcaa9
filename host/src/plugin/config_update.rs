//! Delivering a plugin's new configuration to its running runner (`plugin.config_updated`).

use std::time::Duration;

use maitool_protocol::JsonObject;
use maitool_protocol::rpc::{RpcError, RpcPeer};
use maitool_protocol::wire::methods::{ConfigUpdatedPayload, ConfigUpdatedResponse, names};

/// How long a plugin may take to apply a configuration.
const APPLY_LIMIT: Duration = Duration::from_secs(10);

/// Why a plugin did not apply a new configuration.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ConfigUpdateError {
    /// The call failed or went unanswered.
    #[error(transparent)]
    Call(#[from] RpcError),
    /// The plugin refused it, for its reason.
    #[error("{0}")]
    Refused(String),
    /// The plugin refused it without a reason.
    #[error("the plugin did not apply it (no reason given)")]
    NoReason,
}

/// Sends `config` (scope `self`) to `plugin_id`; Ok once the plugin applied it, Err with its
/// reason (a refusal, an error response, or no answer) otherwise.
pub(crate) async fn update_config(
    peer: &RpcPeer,
    plugin_id: &str,
    config: &JsonObject,
) -> Result<(), ConfigUpdateError> {
    let update = ConfigUpdatedPayload {
        plugin_id: plugin_id.to_owned(),
        config_scope: "self".into(),
        config_version: format!("reload-{}", maitool_protocol::wire::now_ms()),
        config_data: config.clone(),
    };
    let answer = peer
        .call::<_, ConfigUpdatedResponse>(names::CONFIG_UPDATED, plugin_id, &update, APPLY_LIMIT)
        .await?;
    if answer.applied() {
        Ok(())
    } else if answer.reason.is_empty() {
        Err(ConfigUpdateError::NoReason)
    } else {
        Err(ConfigUpdateError::Refused(answer.reason))
    }
}
