//! Configuring, registering and loading each plugin after the handshake; one plugin's
//! failure never affects another.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use futures::FutureExt;
use maitool_protocol::JsonObject;
use maitool_protocol::rpc::RpcPeer;
use maitool_protocol::wire::methods::{
    HelloResponsePayload, RegisterComponentsPayload, RegisterComponentsResponse,
    RunnerReadyPayload, names,
};

use crate::load_error::LoadError;
use crate::{HostClient, PluginSpec};

use super::{LoadedPlugin, RunnerState, panic_message};

/// How long the host may take to answer a registration.
pub(super) const REGISTRATION_TIMEOUT: Duration = Duration::from_secs(10);

/// Configures, registers and loads every plugin; one plugin's failure never affects another.
pub(super) async fn load_plugins(
    state: &Arc<RunnerState>,
    peer: &RpcPeer,
    answer: &HelloResponsePayload,
) -> RunnerReadyPayload {
    let mut ready = RunnerReadyPayload::default();
    for plugin in &state.plugins {
        let spec = &plugin.spec;
        let bootstrap = answer.plugins.get(&spec.id).cloned().unwrap_or_default();
        if !bootstrap.enabled {
            ready.inactive_plugins.push(spec.id.clone());
            continue;
        }
        let loaded = match crate::data_dir::from_bootstrap(&bootstrap.data_dir) {
            Ok(data_dir) => {
                if let Some(dir) = &data_dir {
                    let _ = plugin.data_dir.set(dir.clone());
                }
                load_one(plugin, peer, &bootstrap.config, data_dir).await
            }
            Err(reason) => Err(reason),
        };
        match loaded {
            Ok(Loaded::Running) => {
                plugin.loaded.store(true, Ordering::Release);
                ready.loaded_plugins.push(spec.id.clone());
            }
            Ok(Loaded::AwaitingConfig) => {
                // Loaded as MaiBot loads a plugin whose configuration is invalid: registered,
                // paused by the host, waiting for a valid configuration.
                ready.loaded_plugins.push(spec.id.clone());
            }
            Err(reason) => {
                tracing::error!(plugin_id = %spec.id, "plugin failed to load: {reason}");
                ready.failed_plugins.push(spec.id.clone());
                ready
                    .failed_plugin_reasons
                    .insert(spec.id.clone(), reason.to_string());
            }
        }
    }
    ready
}

/// How a plugin came out of its load.
enum Loaded {
    /// Configured, registered, `on_load` done: serving.
    Running,
    /// Its configuration is invalid: registered with the reason as `config_error`, waiting
    /// for a valid configuration (`plugin.config_updated`) to run `on_load`.
    AwaitingConfig,
}

async fn load_one(
    plugin: &LoadedPlugin,
    peer: &RpcPeer,
    config: &JsonObject,
    data_dir: Option<Arc<Path>>,
) -> Result<Loaded, LoadError> {
    let spec = &plugin.spec;
    // The hooks' records carry the plugin's id, as its handlers' do.
    let tag = &plugin.tag;
    if let Err(problem) =
        crate::log_forward::in_plugin_sync(tag.clone(), || spec.hooks.configure(config))
    {
        tracing::warn!(plugin_id = %spec.id, "invalid configuration; the plugin waits for a valid one: {problem}");
        register(spec, peer, true, &problem).await?;
        *plugin.awaiting_config.lock() = Some(problem);
        return Ok(Loaded::AwaitingConfig);
    }
    activate(plugin, peer, data_dir).await?;
    Ok(Loaded::Running)
}

/// Registers a configured plugin's components and runs its `on_load`; on failure withdraws
/// the components again and runs `on_unload`.
pub(super) async fn activate(
    plugin: &LoadedPlugin,
    peer: &RpcPeer,
    data_dir: Option<Arc<Path>>,
) -> Result<(), LoadError> {
    let spec = &plugin.spec;
    let tag = &plugin.tag;
    register(spec, peer, true, "").await?;
    let host = HostClient::new(peer.clone(), Arc::clone(tag));
    let on_load = crate::log_forward::in_plugin(tag.clone(), spec.hooks.on_load(host, data_dir));
    let load = std::panic::AssertUnwindSafe(on_load).catch_unwind().await;
    let outcome = match load {
        Ok(Ok(())) => return Ok(()),
        Ok(Err(err)) => LoadError::OnLoad(err),
        Err(panic) => LoadError::Panicked(panic_message(panic.as_ref())),
    };
    // Roll back: the host must not keep components of a plugin that is not loaded.
    if let Err(err) = register(spec, peer, false, "").await {
        tracing::warn!(plugin_id = %spec.id, "could not withdraw components: {err}");
    }
    crate::log_forward::in_plugin(tag.clone(), spec.hooks.on_unload()).await;
    Err(outcome)
}

/// Registers the plugin's components (or none), with `config_error` when its configuration is
/// invalid.
async fn register(
    spec: &PluginSpec,
    peer: &RpcPeer,
    with_components: bool,
    config_error: &str,
) -> Result<(), LoadError> {
    let payload = RegisterComponentsPayload {
        plugin_id: spec.id.clone(),
        plugin_version: spec.version.clone(),
        plugin_type: "extension".to_owned(),
        components: if with_components {
            spec.components
                .iter()
                .map(|c| c.declaration.clone())
                .chain(spec.hook_handlers.iter().map(|h| h.declaration.clone()))
                .chain(spec.apis.iter().map(|a| a.declaration.clone()))
                .collect()
        } else {
            Vec::new()
        },
        capabilities_required: spec.capabilities_required.clone(),
        name: spec.name.clone(),
        description: spec.description.clone(),
        default_config: spec.default_config.clone(),
        config_schema: spec.config_schema.clone(),
        config_error: config_error.to_owned(),
    };
    let answer: RegisterComponentsResponse = peer
        .call(
            names::REGISTER_COMPONENTS,
            &spec.id,
            &payload,
            REGISTRATION_TIMEOUT,
        )
        .await
        .map_err(LoadError::Registration)?;
    if answer.accepted {
        Ok(())
    } else {
        Err(LoadError::Refused(answer.reason))
    }
}
