//! `component.*`: the plugin runtime's plugins and components, and switching components on and
//! off. Privileged: a plugin that can list and disable the others' components is granted so
//! explicitly (`component.*` or the exact name); `*` does not include this family.

use std::collections::BTreeMap;

use maitool_protocol::rpc::RpcError;
use maitool_protocol::wire::ErrorCode;
use serde_json::{Value, json};

use super::CapabilityService;
use super::args::Args;
use crate::plugin::{PluginLoadState, PluginStatus};
use maitool_protocol::capability::Capability;

impl CapabilityService {
    /// `component.reload_plugin {plugin_name}`: reloads a plugin (see
    /// [`PluginRuntime::reload_plugin`](crate::plugin::PluginRuntime::reload_plugin)).
    /// Answers MaiBot's `{success}`, or `{success: false, error}` when the reload failed.
    pub(super) async fn reload_plugin(
        &self,
        plugin_id: &str,
        args: Args<'_>,
    ) -> Result<Value, RpcError> {
        let runtime = self
            .runtime
            .get()
            .and_then(std::sync::Weak::upgrade)
            .ok_or_else(|| args.failed("this host has no plugin runtime attached"))?;
        let name = args.required_str("plugin_name")?;
        match runtime.reload_plugin(name.clone()).await {
            Ok(outcome) => {
                tracing::info!(plugin_id, target = %name, "plugin reload requested by a plugin: {outcome}");
                Ok(json!({ "success": true, "outcome": outcome }))
            }
            Err(error) => Ok(json!({ "success": false, "error": error.to_string() })),
        }
    }

    /// `component.update_plugin_config {plugin_name, key, value}`: sets one key (a dotted
    /// path) of a plugin's configuration through the same code as the web console's form:
    /// checked against the plugin's schema, saved into `maitool.toml`, applied live. Answers
    /// MaiBot's `{success, plugin_name, key, hot_updated}`, or `{success: false, error}`.
    pub(super) async fn update_plugin_config(
        &self,
        plugin_id: &str,
        args: Args<'_>,
    ) -> Result<Value, RpcError> {
        let editor = self
            .config_editor
            .get()
            .and_then(std::sync::Weak::upgrade)
            .ok_or_else(|| {
                args.failed("this host saves no plugin configurations (it runs without a configuration editor attached)")
            })?;
        let target = args.required_str("plugin_name")?;
        let key = args.required_str("key")?;
        let value = args.value("value").cloned().unwrap_or(Value::Null);
        match editor.update_key(&target, &key, value).await {
            Ok(()) => {
                tracing::info!(plugin_id, target = %target, key = %key, "plugin configuration changed by a plugin");
                Ok(
                    json!({ "success": true, "plugin_name": target, "key": key, "hot_updated": true }),
                )
            }
            Err(error) => Ok(json!({
                "success": false,
                "error": crate::error_text::chain(error.as_ref()),
            })),
        }
    }

    pub(super) async fn component(
        &self,
        plugin_id: &str,
        args: Args<'_>,
    ) -> Result<Value, RpcError> {
        let runtime = self
            .runtime
            .get()
            .and_then(std::sync::Weak::upgrade)
            .ok_or_else(|| args.failed("this host has no plugin runtime attached"))?;
        if args.capability == Capability::ComponentGetPluginConfigSchema {
            let name = args
                .opt_str("plugin_name")?
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| plugin_id.to_owned());
            return Ok(match runtime.registered_config(&name) {
                Some(registered) => json!({
                    "success": true,
                    "plugin_id": name,
                    "schema": registered.schema,
                    "default_config": registered.default_config,
                }),
                None => {
                    json!({ "success": false, "error": format!("no plugin {name:?} has registered") })
                }
            });
        }
        let plugins: Vec<PluginStatus> = runtime
            .status()
            .into_iter()
            .flat_map(|runner| runner.plugins)
            .collect();
        let components = runtime.components();
        match args.capability {
            Capability::ComponentGetAllPlugins => {
                let mut all = BTreeMap::new();
                for plugin in &plugins {
                    let listed: Vec<Value> = components
                        .plugin_components(&plugin.id)
                        .iter()
                        .map(|entry| {
                            json!({
                                "name": entry.name,
                                "full_name": entry.full_name,
                                "type": entry.component_type,
                                "enabled": components.is_enabled(&entry.full_name),
                                "metadata": {},
                            })
                        })
                        .collect();
                    all.insert(
                        plugin.id.clone(),
                        json!({
                            "name": plugin.id,
                            "display_name": plugin.id,
                            "version": plugin.version,
                            "description": "",
                            "author": "",
                            "enabled": plugin.state != PluginLoadState::Inactive,
                            "components": listed,
                        }),
                    );
                }
                Ok(json!({ "success": true, "plugins": all }))
            }
            Capability::ComponentGetPluginInfo => {
                let name = args
                    .opt_str("plugin_name")?
                    .filter(|n| !n.is_empty())
                    .unwrap_or_else(|| plugin_id.to_owned());
                let plugin = plugins.iter().find(|p| p.id == name).ok_or_else(|| {
                    RpcError::new(
                        ErrorCode::PluginNotFound,
                        format!("{}: no plugin {name:?}", args.capability),
                    )
                })?;
                let registered = runtime.registered_config(&name).unwrap_or_default();
                Ok(json!({
                    "success": true,
                    "plugin": {
                        "name": plugin.id, "version": plugin.version, "description": "",
                        "author": "", "enabled": plugin.state != PluginLoadState::Inactive,
                        "default_config": registered.default_config,
                        "config_schema": registered.schema,
                    },
                }))
            }
            Capability::ComponentListLoadedPlugins | Capability::ComponentListRegisteredPlugins => {
                let loaded_only = args.capability == Capability::ComponentListLoadedPlugins;
                let names: Vec<&str> = plugins
                    .iter()
                    .filter(|p| !loaded_only || p.state == PluginLoadState::Loaded)
                    .map(|p| p.id.as_str())
                    .collect();
                Ok(json!({ "success": true, "plugins": names }))
            }
            Capability::ComponentEnable | Capability::ComponentDisable => {
                let name = args.required_str("name")?;
                let component_type = args.required_str("component_type")?;
                let scope = args.str_or_empty("scope")?;
                if !(scope.is_empty() || scope == "global") {
                    return Err(args.bad(format!(
                        "argument `scope`: only global switching is supported, not {scope:?}"
                    )));
                }
                let entry = components
                    .all()
                    .into_iter()
                    .find(|e| e.full_name == name || e.name == name)
                    .ok_or_else(|| args.bad(format!("argument `name`: no component {name:?}")))?;
                if !entry.component_type.eq_ignore_ascii_case(&component_type) {
                    return Err(args.bad(format!(
                        "argument `component_type`: {} is a {}, not a {component_type}",
                        entry.full_name, entry.component_type
                    )));
                }
                let enabled = args.capability == Capability::ComponentEnable;
                runtime
                    .set_component_enabled(&entry.full_name, enabled, None)
                    .await
                    .map_err(|err| args.failed(crate::error_text::chain(&err)))?;
                tracing::info!(plugin_id, component = %entry.full_name, enabled, "component switched by a plugin");
                Ok(json!({ "success": true }))
            }
            _ => unreachable!("dispatch only routes served component.* capabilities here"),
        }
    }
}
