//! Delivering a plugin's new configuration to its running runner (`plugin.config_updated`),
//! and telling an invalid one (which pauses the plugin) from one the plugin declines.

use std::time::Duration;

use maitool_protocol::JsonObject;
use maitool_protocol::rpc::{RpcError, RpcPeer};
use maitool_protocol::wire::ErrorCode;
use maitool_protocol::wire::methods::{
    ConfigUpdatedPayload, ConfigUpdatedResponse, InspectConfigPayload, InspectConfigResponse, names,
};

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
    /// The configuration breaks the plugin's configuration schema (its words): the plugin is
    /// paused until a valid one arrives.
    #[error("invalid configuration: {0}")]
    Invalid(String),
}

/// Sends `config` (scope `self`) to `plugin_id`; Ok once the plugin applied it, Err with its
/// reason (an invalid configuration, a refusal, an error response, or no answer) otherwise.
///
/// A MaiBot runner (`maibot`) is asked first whether the document is valid
/// (`plugin.inspect_config`, as MaiBot's host does before it applies a configuration): its
/// answer to `plugin.config_updated` does not tell a schema violation from a plugin that
/// declines. A maitool runner says so in its answer (`config_error`).
pub(crate) async fn update_config(
    peer: &RpcPeer,
    plugin_id: &str,
    config: &JsonObject,
    maibot: bool,
) -> Result<(), ConfigUpdateError> {
    if maibot && let Some(problem) = inspect(peer, plugin_id, config).await? {
        return Err(ConfigUpdateError::Invalid(problem));
    }
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
    } else if !answer.config_error.trim().is_empty() {
        Err(ConfigUpdateError::Invalid(answer.config_error))
    } else if answer.reason.is_empty() {
        Err(ConfigUpdateError::NoReason)
    } else {
        Err(ConfigUpdateError::Refused(answer.reason))
    }
}

/// What a MaiBot runner finds wrong with `config`, if anything. A runner that does not know
/// `plugin.inspect_config` is taken to accept it: `plugin.config_updated` then decides.
async fn inspect(
    peer: &RpcPeer,
    plugin_id: &str,
    config: &JsonObject,
) -> Result<Option<String>, ConfigUpdateError> {
    let request = InspectConfigPayload {
        config_data: config.clone(),
        use_provided_config: true,
    };
    match peer
        .call::<_, InspectConfigResponse>(names::INSPECT_CONFIG, plugin_id, &request, APPLY_LIMIT)
        .await
    {
        Ok(answer) => {
            let problem = answer.config_error.trim();
            Ok((!problem.is_empty()).then(|| problem.to_owned()))
        }
        Err(err) if err.code == ErrorCode::MethodNotAllowed => Ok(None),
        Err(err) => Err(err.into()),
    }
}
