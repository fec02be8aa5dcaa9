//! `maitool plugins`: each plugin with its version, runner, load state and components.

use std::process::ExitCode;

use crate::LoadedConfig;
use crate::circuit::{CircuitState, CircuitStatus};
use crate::control::views::{self, PluginView};
use anyhow::{Result, anyhow};

use super::{OneShotWait, Target, target};
use crate::cli::args::Cli;
use crate::cli::output::outln;

pub(super) async fn plugins(cli: &Cli, config: LoadedConfig, json: bool) -> Result<ExitCode> {
    let target = target(cli, config, OneShotWait::Listing).await?;
    let plugins = match &target {
        Target::Remote(client) => client.plugins().await.map_err(|e| anyhow!(e))?,
        Target::Local(host, _) => views::plugins(host),
    };
    let code = target.finish().await;
    if json {
        outln!("{}", serde_json::to_string_pretty(&plugins)?)?;
    } else {
        print_plugins(&plugins)?;
    }
    Ok(code)
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        "-".to_owned()
    } else {
        names.join(", ")
    }
}

/// The grants as the operator gave them: `send.text, kv.*`, or with `grant_declared`
/// `as declared (send.text, llm.generate)`, then `plus kv.*` for the operator's own others.
fn granted(plugin: &PluginView) -> String {
    if !plugin.grant_declared {
        return list(&plugin.granted_capabilities);
    }
    let (as_declared, others): (Vec<String>, Vec<String>) = plugin
        .granted_capabilities
        .iter()
        .cloned()
        .partition(|grant| plugin.declared_capabilities.contains(grant));
    let mut text = if plugin.declared_capabilities.is_empty() {
        "as declared (nothing declared)".to_owned()
    } else if as_declared.is_empty() {
        "as declared (nothing declared is served)".to_owned()
    } else {
        format!("as declared ({})", as_declared.join(", "))
    };
    if !others.is_empty() {
        text.push_str(&format!(", plus {}", others.join(", ")));
    }
    text
}

/// A plugin's circuit breaker in one line: its state, the failures, the last one, and when
/// the next call is let through.
pub(super) fn circuit_line(circuit: &CircuitStatus) -> String {
    let mut line = format!(
        "circuit {}: {} failed call(s) in a row",
        circuit.state, circuit.consecutive_failures
    );
    if let Some(last) = &circuit.last_failure {
        line.push_str(&format!(" (last: {last})"));
    }
    match circuit.retry_in_ms {
        Some(ms) => line.push_str(&format!("; next probe in {:.1} s", ms as f64 / 1000.0)),
        None if circuit.state == CircuitState::HalfOpen => {
            line.push_str("; the next call is a probe")
        }
        None => {}
    }
    line.push_str(&format!(
        "; opened {} time(s), {} call(s) refused",
        circuit.opened_total, circuit.rejected_total
    ));
    line
}

fn print_plugins(plugins: &[PluginView]) -> Result<()> {
    if plugins.is_empty() {
        outln!("no plugins configured")?;
        return Ok(());
    }
    let id_width = plugins.iter().map(|p| p.id.len()).max().unwrap_or(6).max(6);
    let runner_width = plugins
        .iter()
        .map(|p| p.runner.len())
        .max()
        .unwrap_or(6)
        .max(6);
    outln!(
        "{:id_width$}  {:10}  {:runner_width$}  STATE",
        "PLUGIN",
        "VERSION",
        "RUNNER"
    )?;
    for plugin in plugins {
        let state = serde_json::to_value(plugin.state)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        let reason = plugin
            .reason
            .as_deref()
            .map(|r| format!(": {r}"))
            .unwrap_or_default();
        let version = if plugin.version.is_empty() {
            "-"
        } else {
            &plugin.version
        };
        outln!(
            "{:id_width$}  {version:10}  {:runner_width$}  {state}{reason}",
            plugin.id,
            plugin.runner
        )?;
        if let Some(circuit) = &plugin.circuit {
            outln!("    {}", circuit_line(circuit))?;
        }
        if !plugin.declared_capabilities.is_empty()
            || !plugin.granted_capabilities.is_empty()
            || plugin.grant_declared
        {
            outln!(
                "    capabilities declared: {}; granted: {}",
                list(&plugin.declared_capabilities),
                granted(plugin)
            )?;
        }
        if !plugin.unserved_capabilities.is_empty() {
            outln!(
                "    not served by maitool (never granted, calls refused): {}",
                plugin.unserved_capabilities.join(", ")
            )?;
        }
        if let Some(sandbox) = &plugin.sandbox {
            outln!("    sandbox: {}", sandbox.line())?;
        }
        for component in &plugin.components {
            let enabled = if component.enabled {
                "enabled"
            } else {
                "disabled"
            };
            let kind = if component.legacy_action {
                "ACTION (legacy)"
            } else {
                &component.component_type
            };
            // Visibility is how a tool reaches a model: other components have none.
            let visibility = match component.component_type.as_str() {
                "TOOL" | "ACTION" => component.visibility.as_str(),
                _ => "-",
            };
            let mut notes = String::new();
            if !component.platforms.is_empty() {
                notes.push_str(&format!(" platforms={}", component.platforms.join(",")));
            }
            if component.stop_after_execution {
                notes.push_str(" stop_after_execution");
            }
            outln!(
                "    {:40} {kind:16} {visibility:9} {enabled}{notes}",
                component.full_name
            )?;
            // A tool runs when called; anything else says what makes it run, or that
            // nothing does: in full for a hook handler or an API (their detail says when too).
            if let Some(detail) = &component.detail {
                outln!("        {detail}")?;
            } else if !matches!(component.component_type.as_str(), "TOOL" | "ACTION")
                && !component.runs.is_empty()
            {
                outln!("        runs {}", component.runs)?;
            }
        }
    }
    Ok(())
}
