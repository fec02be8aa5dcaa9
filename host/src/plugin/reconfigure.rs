//! What a reload delivers to a running plugin whose settings changed: its new configuration,
//! or, for a MaiBot plugin its runner loaded with an invalid `config.toml`, a reload in place.

use maitool_protocol::JsonObject;
use maitool_protocol::rpc::RpcPeer;

use super::config_update::{ConfigUpdateError, update_config};
use super::runner_shared::RunnerShared;
use super::shared::{ConfigErrorOrigin, RuntimeShared};

/// Brings a running plugin its new settings on a reload: `config` when it changed, or when
/// the plugin is paused by an invalid one (a valid document resumes it). A MaiBot runner
/// refuses updates for a plugin it loaded with an invalid `config.toml`: that plugin is
/// reloaded in place instead, reading its file again (MaiBot's "config_repaired"). Ok when
/// there was nothing to deliver.
pub(crate) async fn deliver(
    runtime: &RuntimeShared,
    runner: &RunnerShared,
    peer: &RpcPeer,
    plugin_id: &str,
    config: &JsonObject,
    config_changed: bool,
) -> Result<(), ConfigUpdateError> {
    let maibot = runner.launch.maibot.is_some();
    match runtime.config_error(plugin_id) {
        Some(paused) if maibot && paused.origin == ConfigErrorOrigin::Registration => {
            super::maibot::repair_plugin(runtime, runner, peer, plugin_id, config).await
        }
        Some(_) => update_config(peer, plugin_id, config, maibot).await,
        None if config_changed => update_config(peer, plugin_id, config, maibot).await,
        // Grants only.
        None => Ok(()),
    }
}
