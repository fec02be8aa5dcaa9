//! `maitool hook NAME --kwargs JSON`: runs a named hook over the plugins' handlers and prints
//! the outcome; `maitool hook --list`: every hook, who runs it and its handlers.

use std::process::ExitCode;

use anyhow::{Context, Result, anyhow};

use super::{OneShotWait, Target, target};
use crate::LoadedConfig;
use crate::cli::EXIT_FAILED;
use crate::cli::args::Cli;
use crate::cli::output::outln;
use crate::control::views::{self, HookView};
use crate::hook::HookOutcome;

/// Runs `name`; exit 0 when the point may go on, 1 when a handler aborted it, 2 for an
/// unknown hook or kwargs its schema refuses.
pub(super) async fn run(
    cli: &Cli,
    config: LoadedConfig,
    name: &str,
    kwargs: &str,
    json: bool,
) -> Result<ExitCode> {
    let kwargs: serde_json::Value = serde_json::from_str(kwargs)
        .with_context(|| format!("--kwargs is not valid JSON: {kwargs}"))?;
    let serde_json::Value::Object(kwargs) = kwargs else {
        return Err(anyhow!("--kwargs must be a JSON object, got {kwargs}"));
    };
    // The hook needs its handlers' runners, as a call needs its tool's.
    let target = target(cli, config, OneShotWait::Call).await?;
    let outcome = match &target {
        Target::Remote(client) => client
            .hook(name, kwargs)
            .await
            .map_err(|e| anyhow!(e.message)),
        Target::Local(host, _) => host.invoke_hook(name, kwargs).await.map_err(|e| anyhow!(e)),
    };
    let _ = target.finish().await;
    let outcome = outcome?;
    if json {
        outln!("{}", serde_json::to_string_pretty(&outcome)?)?;
    } else {
        print_outcome(&outcome)?;
    }
    Ok(if outcome.aborted {
        ExitCode::from(EXIT_FAILED)
    } else {
        ExitCode::SUCCESS
    })
}

fn print_outcome(outcome: &HookOutcome) -> Result<()> {
    match &outcome.stopped_by {
        Some(handler) if outcome.aborted => outln!("{}: aborted by {handler}", outcome.hook_name)?,
        _ if outcome.aborted => outln!("{}: aborted", outcome.hook_name)?,
        _ => outln!(
            "{}: continue ({} handler{} ran)",
            outcome.hook_name,
            outcome.handlers_run,
            if outcome.handlers_run == 1 { "" } else { "s" }
        )?,
    }
    outln!("kwargs: {}", serde_json::to_string(&outcome.kwargs)?)?;
    for custom in &outcome.custom_results {
        outln!("custom result: {custom}")?;
    }
    for error in &outcome.errors {
        outln!("error: {error}")?;
    }
    Ok(())
}

/// Every hook, who runs it, and its handlers.
pub(super) async fn list(cli: &Cli, config: LoadedConfig, json: bool) -> Result<ExitCode> {
    let target = target(cli, config, OneShotWait::Listing).await?;
    let hooks = match &target {
        Target::Remote(client) => client.hooks().await.map_err(|e| anyhow!(e))?,
        Target::Local(host, _) => views::hooks(host),
    };
    let code = target.finish().await;
    if json {
        outln!("{}", serde_json::to_string_pretty(&hooks)?)?;
    } else {
        print_hooks(&hooks)?;
    }
    Ok(code)
}

fn print_hooks(hooks: &[HookView]) -> Result<()> {
    for hook in hooks {
        let mut can = Vec::new();
        if hook.allow_abort {
            can.push("abort");
        }
        if hook.allow_kwargs_mutation {
            can.push("change kwargs");
        }
        let can = if can.is_empty() {
            "observe only".to_owned()
        } else {
            format!("handlers may {}", can.join(" and "))
        };
        outln!("{} ({can})", hook.name)?;
        outln!("    {}", hook.run_by)?;
        for handler in &hook.handlers {
            outln!(
                "    {} {} {} error_policy {}",
                handler.full_name,
                handler.mode,
                handler.order,
                handler.error_policy
            )?;
        }
    }
    Ok(())
}
