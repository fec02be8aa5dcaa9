//! The console's live fragments: the runners, plugins, tools and MCP servers tables, each
//! rendered whole from a snapshot of the host (the first page load and every SSE update use
//! the same functions).

use std::collections::HashMap;
use std::time::Instant;

use maitool_protocol::{ToolSpec, Visibility};
use maud::{Markup, html};

use crate::app::Host;
use crate::control::views::{PluginView, plugins};
use crate::mcp_client::McpServerStatus;
use crate::metrics::ToolCallStats;
use crate::plugin::{PluginLoadState, RunnerStatus};

/// One snapshot of everything the overview shows.
pub(super) struct Snapshot {
    pub runners: Vec<RunnerStatus>,
    pub plugins: Vec<PluginView>,
    pub tools: Vec<std::sync::Arc<ToolSpec>>,
    pub stats: Vec<ToolCallStats>,
    pub mcp: Vec<McpServerStatus>,
    pub taken: Instant,
}

impl Snapshot {
    pub async fn of(host: &Host) -> Snapshot {
        Snapshot {
            runners: host.plugins.status(),
            plugins: plugins(host),
            tools: host.registry.list_tools(&Default::default()).await,
            stats: host.registry.metrics().snapshot(),
            mcp: host.mcp().map(|mcp| mcp.status()).unwrap_or_default(),
            taken: Instant::now(),
        }
    }
}

/// A state as a badge (`state-ready`, ...).
fn badge(state: &str) -> Markup {
    html! { span class={ "state state-" (state) } { (state) } }
}

/// The serde name of a state enum.
fn name_of(value: &impl serde::Serialize) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn duration(seconds: u64) -> String {
    match seconds {
        0..60 => format!("{seconds}s"),
        60..3600 => format!("{}m {}s", seconds / 60, seconds % 60),
        _ => format!("{}h {}m", seconds / 3600, seconds % 3600 / 60),
    }
}

/// The runners table.
pub(super) fn runners(runners: &[RunnerStatus]) -> Markup {
    html! {
        table #runners-table {
            thead { tr { th { "Runner" } th { "State" } th { "PID" } th { "Uptime" } th { "Restarts" } th { "Last exit" } th { "Sandbox" } th {} } }
            tbody {
                @for runner in runners {
                    tr data-runner=(runner.name) {
                        td { (runner.name) }
                        td { (badge(&name_of(&runner.state))) }
                        td class="pid" { @if let Some(pid) = runner.pid { (pid) } @else { "—" } }
                        td { @if let Some(up) = runner.uptime_seconds { (duration(up)) } @else { "—" } }
                        td class="restarts" { (runner.restart_count) }
                        td class="muted" { (runner.last_exit_reason.as_deref().unwrap_or("—")) }
                        td class="muted" { @if let Some(sandbox) = &runner.sandbox { (sandbox.line()) } @else { "—" } }
                        td {
                            form.inline method="post" action={ "/runners/" (runner.name) "/restart" } {
                                button type="submit" { "Restart" }
                            }
                        }
                    }
                    @if let Some(env) = &runner.environment {
                        tr { td {} td colspan="7" class="muted" {
                            "Python environment: " (name_of(&env.state))
                            @if let Some(detail) = &env.detail { " — " (detail) }
                        } }
                    }
                }
            }
        }
    }
}

/// The plugins table.
pub(super) fn plugin_rows(plugins: &[PluginView]) -> Markup {
    html! {
        table #plugins-table {
            thead { tr { th { "Plugin" } th { "Runner" } th { "State" } th { "Components" } th { "Capabilities" } th {} } }
            tbody {
                @for plugin in plugins {
                    tr data-plugin=(plugin.id) {
                        td { a href={ "/plugins/" (plugin.id) } { (plugin.id) } " " span.muted { (plugin.version) } }
                        td { (plugin.runner) }
                        td {
                            (badge(&name_of(&plugin.state)))
                            @if let Some(reason) = &plugin.reason { div.reason { (reason) } }
                        }
                        td { (components_by_kind(plugin)) }
                        td class="muted" {
                            "declared: " (list(&plugin.declared_capabilities)) br;
                            "granted: " (list(&plugin.granted_capabilities))
                            @if !plugin.unserved_capabilities.is_empty() { br; "unserved: " (list(&plugin.unserved_capabilities)) }
                        }
                        td { (plugin_switch(plugin)) }
                    }
                }
            }
        }
    }
}

/// Enable or Disable, whichever applies.
pub(super) fn plugin_switch(plugin: &PluginView) -> Markup {
    let inactive = plugin.state == PluginLoadState::Inactive;
    let (verb, label) = if inactive {
        ("enable", "Enable")
    } else {
        ("disable", "Disable")
    };
    html! {
        form.inline method="post" action={ "/plugins/" (plugin.id) "/" (verb) } {
            button type="submit" name="plugin" value=(plugin.id) { (label) }
        }
    }
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "—".into()
    } else {
        items.join(", ")
    }
}

/// `3 tools, 1 command` with the disabled ones counted apart.
fn components_by_kind(plugin: &PluginView) -> Markup {
    let mut kinds: Vec<(String, usize, usize)> = Vec::new();
    for component in &plugin.components {
        let kind = component.component_type.to_ascii_lowercase();
        match kinds.iter_mut().find(|(k, _, _)| *k == kind) {
            Some((_, total, off)) => {
                *total += 1;
                *off += usize::from(!component.enabled);
            }
            None => kinds.push((kind, 1, usize::from(!component.enabled))),
        }
    }
    html! {
        @if kinds.is_empty() { span.muted { "none" } }
        @for (kind, total, off) in &kinds {
            div { (total) " " (kind) @if *off > 0 { " (" (off) " disabled)" } }
        }
    }
}

/// Calls per second between two snapshots, per provider and tool.
pub(super) type Rates = HashMap<(String, String), f64>;

/// Per-tool call rates from `previous` to `now`.
pub(super) fn rates(previous: Option<&Snapshot>, now: &Snapshot) -> Rates {
    let Some(previous) = previous else {
        return Rates::new();
    };
    let seconds = now.taken.duration_since(previous.taken).as_secs_f64();
    if seconds <= 0.0 {
        return Rates::new();
    }
    let before: HashMap<(&str, &str), u64> = previous
        .stats
        .iter()
        .map(|s| ((s.provider.as_str(), s.tool.as_str()), s.calls))
        .collect();
    now.stats
        .iter()
        .map(|s| {
            let was = before
                .get(&(s.provider.as_str(), s.tool.as_str()))
                .copied()
                .unwrap_or(0);
            (
                (s.provider.clone(), s.tool.clone()),
                s.calls.saturating_sub(was) as f64 / seconds,
            )
        })
        .collect()
}

/// The tools table.
pub(super) fn tools(snapshot: &Snapshot, rates: &Rates) -> Markup {
    let stats: HashMap<(&str, &str), &ToolCallStats> = snapshot
        .stats
        .iter()
        .map(|s| ((s.provider.as_str(), s.tool.as_str()), s))
        .collect();
    html! {
        table #tools-table {
            thead { tr { th { "Tool" } th { "Provider" } th { "Visibility" } th { "Calls" } th { "Calls/s" } th { "Errors" } th { "p50 ms" } th { "p99 ms" } } }
            tbody {
                @for spec in &snapshot.tools {
                    @let stat = stats.get(&(spec.provider_name.as_str(), spec.name.as_str()));
                    tr data-tool=(spec.name) {
                        td { (spec.name) }
                        td { (spec.provider_name) }
                        td { (name_of(&Visibility::of_spec(spec))) }
                        td { (stat.map_or(0, |s| s.calls)) }
                        td { (format!("{:.2}", rates.get(&(spec.provider_name.clone(), spec.name.clone())).copied().unwrap_or(0.0))) }
                        td { (stat.map_or(0, |s| s.failures)) }
                        td { (stat.map_or("—".into(), |s| format!("{:.1}", s.latency.p50_ms))) }
                        td { (stat.map_or("—".into(), |s| format!("{:.1}", s.latency.p99_ms))) }
                    }
                }
            }
        }
    }
}

/// The MCP servers table.
pub(super) fn mcp(servers: &[McpServerStatus]) -> Markup {
    html! {
        table #mcp-table {
            thead { tr { th { "Server" } th { "State" } th { "Tools" } th { "Reconnects" } th { "Last error" } } }
            tbody {
                @if servers.is_empty() { tr { td colspan="5" class="muted" { "No MCP servers." } } }
                @for server in servers {
                    tr data-mcp=(server.name) {
                        td { (server.name) " " span.muted { (server.server_name.as_deref().unwrap_or("")) } }
                        td { (badge(&name_of(&server.state))) }
                        td { (server.exposed_tool_count) " / " (server.tool_count) }
                        td { (server.reconnect_count) }
                        td class="reason" { (server.last_error.as_deref().unwrap_or("")) }
                    }
                }
            }
        }
    }
}
