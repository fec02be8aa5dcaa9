//! What a one-shot host could not start: each configured runner and MCP server that did not
//! come up, and each plugin a running runner could not load, and why. Said on stderr, and in
//! the exit status of the verbs that list what the host has, so that "no tools" is never what
//! a failed runner or plugin looks like.

use crate::Host;
use crate::mcp_client::McpServerState;
use crate::plugin::{PluginLoadState, RunnerState};

/// `KIND NAME failed to start: WHY` for every enabled source of `host` that is not up, and
/// `plugin ID failed to load: WHY` for every plugin of a ready runner that failed (a failed
/// runner's plugins are said with it).
pub(super) fn failed_sources(host: &Host) -> Vec<String> {
    let status = host.status();
    let runners = status
        .runners
        .iter()
        .filter(|runner| !matches!(runner.state, RunnerState::Ready | RunnerState::Stopped))
        .map(|runner| {
            let why = runner.last_exit_reason.as_deref().unwrap_or(
                "connected, but not ready when the host stopped waiting (plugin_runtime.ready_timeout_ms)",
            );
            format!("runner {} failed to start: {why}", runner.name)
        });
    let servers = status
        .mcp_servers
        .iter()
        .filter(|server| {
            !matches!(
                server.state,
                McpServerState::Connected | McpServerState::Disabled
            )
        })
        .map(|server| {
            let why = server
                .last_error
                .clone()
                .unwrap_or_else(|| server.state.as_str().to_owned());
            format!("MCP server {} failed to start: {why}", server.name)
        });
    let plugins = status
        .runners
        .iter()
        .filter(|runner| runner.state == RunnerState::Ready)
        .flat_map(|runner| &runner.plugins)
        .filter(|plugin| plugin.state == PluginLoadState::Failed)
        .map(|plugin| {
            format!(
                "plugin {} failed to load: {}",
                plugin.id,
                plugin
                    .reason
                    .as_deref()
                    .unwrap_or("its runner gave no reason")
            )
        });
    runners.chain(plugins).chain(servers).collect()
}
