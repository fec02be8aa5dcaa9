//! What a one-shot host could not start: each configured runner and MCP server that did not
//! come up, and each plugin a running runner could not load, and why. Said on stderr, and in
//! the exit status of the verbs that list what the host has, so that "no tools" is never what
//! a failed runner or plugin looks like.

use crate::Host;
use crate::mcp_client::McpServerState;
use crate::plugin::{PluginLoadState, RunnerState};

/// `KIND NAME failed to start: WHY` for every enabled source of `host` that is not up, and
/// `plugin ID failed to load: WHY` for every plugin of a ready runner that failed (a failed
/// runner's plugins are said with it); `waited` names the limit the host waited up to, for a
/// source still starting.
pub(super) fn failed_sources(host: &Host, waited: &str) -> Vec<String> {
    let status = host.status();
    let runners = status
        .runners
        .iter()
        .filter(|runner| !matches!(runner.state, RunnerState::Ready | RunnerState::Stopped))
        .map(|runner| match runner.last_exit_reason.as_deref() {
            Some(why) => format!("runner {} failed to start: {why}", runner.name),
            None => format!(
                "runner {} not ready: still starting when the host stopped waiting ({waited})",
                runner.name
            ),
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
        .map(|server| match &server.last_error {
            Some(why) => format!("MCP server {} failed to start: {why}", server.name),
            None => format!(
                "MCP server {} not ready: still {} when the host stopped waiting ({waited})",
                server.name,
                server.state.as_str()
            ),
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
