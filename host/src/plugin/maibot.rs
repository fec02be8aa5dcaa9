//! What the host asks of a running MaiBot runner (`kind = "maibot"`): the operator's
//! configuration for its plugins once they are loaded, and unloading or reloading plugins in
//! place. Its launch is `config/maibot.rs`.

use std::collections::BTreeMap;

use maitool_protocol::rpc::{RpcError, RpcPeer};
use maitool_protocol::wire::methods::{
    ReloadPluginPayload, ReloadPluginResponse, UnloadPluginsPayload, UnloadPluginsResponse, names,
};

use super::config::{DISABLED_REASON, MaibotLaunch, config_document};
use super::config_update::{ConfigUpdateError, update_config};
use super::runner_shared::RunnerShared;
use super::shared::{ConfigErrorOrigin, RuntimeShared};

/// How long a MaiBot runner may take to unload plugins (it runs their `on_unload`).
const UNLOAD_LIMIT: std::time::Duration = std::time::Duration::from_secs(15);
/// How long a MaiBot runner may take to reload a plugin (unload, import, load, register).
const RELOAD_LIMIT: std::time::Duration = std::time::Duration::from_secs(30);

/// Sends each loaded plugin whose configuration the operator set its whole document, once
/// the runner is ready. An invalid document pauses the plugin's tools (the `config_error`
/// state) until a reload brings a valid one; a plugin that declines a valid one keeps running
/// on its own file, which is logged.
pub(crate) async fn deliver_overrides(
    peer: &RpcPeer,
    runtime: &RuntimeShared,
    runner: &RunnerShared,
    maibot: &MaibotLaunch,
    loaded: &[String],
) {
    let settings = runner.settings();
    for plugin_id in loaded.iter().filter(|id| maibot.overridden.contains(*id)) {
        let Some(plugin) = settings.get(plugin_id) else {
            continue;
        };
        // A plugin the runner loaded with an invalid file refuses updates; it is paused.
        if runtime.is_paused(plugin_id) {
            continue;
        }
        // The document was merged over the plugin's config.toml when the configuration was
        // read. A plugin that had none then has one now: MaiBot's runner writes it back,
        // normalised, as it loads the plugin, and refuses a document without its `[plugin]`
        // section. So the operator's settings are merged again over the file as it is now.
        let document = match maibot.folders.get(plugin_id) {
            Some(folder) => match config_document(folder, &plugin.config) {
                Ok(document) => document,
                Err(problem) => {
                    tracing::warn!(runner = %runner.name, plugin_id = %plugin_id, "cannot read the plugin's config.toml again; sending the configuration as read at start: {problem}");
                    plugin.config.clone()
                }
            },
            None => plugin.config.clone(),
        };
        match update_config(peer, plugin_id, &document, true).await {
            Ok(()) => {
                tracing::debug!(runner = %runner.name, plugin_id = %plugin_id, "operator configuration delivered")
            }
            Err(ConfigUpdateError::Invalid(problem)) => {
                runtime.pause_plugin(runner, plugin_id, &problem, ConfigErrorOrigin::Update);
            }
            Err(reason) => {
                tracing::warn!(runner = %runner.name, plugin_id = %plugin_id, "the plugin refused the operator's configuration and keeps its config.toml: {reason}")
            }
        }
    }
}

/// Reloads a plugin the runner loaded with an invalid `config.toml`, so that it reads the file
/// again, then delivers the operator's document if there is one. The plugin's new registration
/// says whether it is still paused.
pub(crate) async fn repair_plugin(
    runtime: &RuntimeShared,
    runner: &RunnerShared,
    peer: &RpcPeer,
    plugin_id: &str,
    config: &maitool_protocol::JsonObject,
) -> Result<(), ConfigUpdateError> {
    let answer = reload_plugin(peer, plugin_id).await?;
    if !answer.reloaded_plugins.iter().any(|p| p == plugin_id) {
        let reason = answer
            .failed_plugins
            .get(plugin_id)
            .cloned()
            .unwrap_or_else(|| format!("runner {} did not reload it", runner.name));
        return Err(ConfigUpdateError::Refused(reason));
    }
    if let Some(paused) = runtime.config_error(plugin_id) {
        return Err(ConfigUpdateError::Invalid(paused.problem));
    }
    let overridden = runner
        .launch
        .maibot
        .as_ref()
        .is_some_and(|maibot| maibot.overridden.contains(plugin_id));
    if overridden {
        update_config(peer, plugin_id, config, true).await?;
    }
    Ok(())
}

/// Asks a MaiBot runner to unload `plugins` without stopping.
pub(crate) async fn unload_plugins(
    peer: &RpcPeer,
    plugins: &[String],
) -> Result<UnloadPluginsResponse, RpcError> {
    let request = UnloadPluginsPayload {
        plugin_ids: plugins.to_vec(),
        reason: DISABLED_REASON.to_owned(),
    };
    peer.call::<_, UnloadPluginsResponse>(names::UNLOAD_BATCH, "", &request, UNLOAD_LIMIT)
        .await
}

/// Asks a MaiBot runner to reload one plugin in place.
pub(crate) async fn reload_plugin(
    peer: &RpcPeer,
    plugin_id: &str,
) -> Result<ReloadPluginResponse, RpcError> {
    let request = ReloadPluginPayload {
        plugin_id: plugin_id.to_owned(),
        reason: "reload requested through component.reload_plugin".to_owned(),
        external_available_plugins: BTreeMap::new(),
    };
    peer.call::<_, ReloadPluginResponse>(names::RELOAD, plugin_id, &request, RELOAD_LIMIT)
        .await
}
