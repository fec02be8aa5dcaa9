use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use crate::control::ControlClient;
use crate::metrics::StartObserver;
use crate::{Host, HostConfig, LoadedConfig};
use anyhow::{Context, Result, anyhow};
use maitool_protocol::ToolInvocation;

use super::args::{Cli, Command};
use super::output::{StdoutClosed, TerminalProgress, outln, print_result, print_tools};
use super::{EXIT_FAILED, EXIT_SOURCE_FAILED, EXIT_USAGE};

mod cluster;
mod definitions;
mod hook;
mod message;
mod metrics;
mod plugins;
mod prepare;
mod serve;
mod sources;
mod status;
mod store;
mod watch;

use serve::serve;
use status::print_status;

pub async fn run(cli: Cli) -> ExitCode {
    match dispatch(cli).await {
        Ok(code) => code,
        // The reader of stdout is gone (`| head -1`): nothing left to say, to anyone.
        Err(err) if err.downcast_ref::<StdoutClosed>().is_some() => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("maitool: {err:#}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

/// Either a running host (through its control socket) or one started for this command.
pub(super) enum Target {
    Remote(ControlClient),
    /// A one-shot host, and whether a configured runner or MCP server failed to start.
    Local(Arc<Host>, bool),
}

impl Target {
    /// Stops a one-shot host. The exit status of a verb that shows what the host has:
    /// [`EXIT_SOURCE_FAILED`] when a one-shot host could not start every configured source
    /// (its output is still printed, without that source), else success.
    async fn finish(self) -> ExitCode {
        match self {
            Target::Remote(_) => ExitCode::SUCCESS,
            Target::Local(host, failed) => {
                host.shutdown().await;
                if failed {
                    ExitCode::from(EXIT_SOURCE_FAILED)
                } else {
                    ExitCode::SUCCESS
                }
            }
        }
    }
}

pub(super) fn load_config(cli: &Cli) -> Result<LoadedConfig> {
    Ok(HostConfig::discover(cli.config.as_deref())?)
}

/// The control socket: `--control-socket` (a bare name is in the working directory), else
/// the configuration's (already absolute).
pub(super) fn control_socket(cli: &Cli, config: &LoadedConfig) -> Result<PathBuf> {
    let socket = cli
        .control_socket
        .as_deref()
        .unwrap_or(&config.config.host.control_socket);
    Ok(crate::control::absolute_socket_path(socket)?)
}

/// How long a one-shot host waits for its sources before the command runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum OneShotWait {
    /// A listing (`tools`, `status`, `plugins`, `definitions`): for sources that are starting
    /// normally, at most `[host] listing_wait_ms`; what is not up by then is named on stderr.
    Listing,
    /// `call`: until each runner is ready or its first launch ended and each MCP server's
    /// first attempt ended, since the call needs its tool.
    Call,
}

pub(super) async fn target(cli: &Cli, config: LoadedConfig, wait: OneShotWait) -> Result<Target> {
    let socket = control_socket(cli, &config)?;
    if let Some(client) = ControlClient::connect(&socket).await {
        return Ok(Target::Remote(client));
    }
    // Said on stderr, so that a script reading stdout gets the same answer either way, and
    // an operator who expected their serve learns it is not there (a one-shot host has its
    // own runners, discoveries and counters, and forgets them when the command ends). A
    // closed stderr is no reason to fail the command.
    let _ = writeln!(
        std::io::stderr(),
        "maitool: no maitool serve is running on {}: a one-shot host started for this command answers it",
        socket.display()
    );
    let progress = TerminalProgress::on_terminal();
    let observer = progress.as_ref().map(|p| p as &dyn StartObserver);
    let started = match wait {
        OneShotWait::Listing => Host::start_for_one_command(config, observer, true).await,
        OneShotWait::Call => Host::start_for_one_command(config, observer, false).await,
    };
    drop(progress);
    let host = Arc::new(started.context("cannot start the host")?);
    let waited = match wait {
        OneShotWait::Listing => "[host] listing_wait_ms",
        OneShotWait::Call => {
            "plugin_runtime.handshake_timeout_ms and ready_timeout_ms, the MCP connect timeout"
        }
    };
    let failed = sources::failed_sources(&host, waited);
    for failure in &failed {
        let _ = writeln!(std::io::stderr(), "maitool: {failure}");
    }
    Ok(Target::Local(host, !failed.is_empty()))
}

async fn dispatch(cli: Cli) -> Result<ExitCode> {
    // `reload` asks the running host to validate the file; a local parse is only needed to
    // find the control socket.
    if let Command::Reload { json } = &cli.command {
        let socket = match &cli.control_socket {
            Some(socket) => crate::control::absolute_socket_path(socket)?,
            None => load_config(&cli)?.config.host.control_socket,
        };
        return reload(&socket, *json).await;
    }
    let config = load_config(&cli)?;
    match &cli.command {
        Command::Serve(args) => serve(&cli, args, config).await,
        Command::Plugins { json } => plugins::plugins(&cli, config, *json).await,
        Command::Hook {
            name,
            kwargs,
            list,
            json,
        } => match (list, name) {
            (false, Some(name)) => hook::run(&cli, config, name, kwargs, *json).await,
            _ => hook::list(&cli, config, *json).await,
        },
        Command::Prepare { runners, json } => prepare::prepare(config, runners, *json).await,
        Command::Store(command) => store::store(config, command).await,
        Command::Message(args) => message::message(&cli, config, args).await,
        Command::Definitions {
            format,
            stage,
            context,
            json,
        } => definitions::definitions(&cli, config, *format, *stage, context, *json).await,
        Command::Tools { context, json } => {
            let target = target(&cli, config, OneShotWait::Listing).await?;
            let tools = match &target {
                Target::Remote(client) => client
                    .tools(context.availability())
                    .await
                    .map_err(|e| anyhow!(e))?,
                Target::Local(host, _) => host.registry.list_tools(&context.availability()).await,
            };
            let code = target.finish().await;
            if *json {
                outln!("{}", serde_json::to_string_pretty(&tools)?)?;
            } else {
                print_tools(&tools)?;
            }
            Ok(code)
        }
        Command::Call {
            name,
            args,
            context,
            reasoning,
            json,
        } => {
            let arguments: serde_json::Value = serde_json::from_str(args)
                .with_context(|| format!("--args is not valid JSON: {args}"))?;
            let serde_json::Value::Object(arguments) = arguments else {
                return Err(anyhow!("--args must be a JSON object, got {args}"));
            };
            let mut invocation = ToolInvocation::new(name.clone(), arguments)
                .with_call_id(format!("cli-{}", std::process::id()));
            invocation.session_id = context.session_id.clone();
            invocation.stream_id = context.stream_id.clone();
            invocation.reasoning = reasoning.clone();
            let execution = context.execution(reasoning);
            let target = target(&cli, config, OneShotWait::Call).await?;
            let result = match &target {
                Target::Remote(client) => client
                    .call(invocation, execution)
                    .await
                    .map_err(|e| anyhow!(e))?,
                Target::Local(host, _) => host.registry.invoke(invocation, &execution).await,
            };
            // The call's own outcome is the exit status: a source that failed to start is
            // named on stderr, and a call to one of its tools fails (`tool not found`).
            let _ = target.finish().await;
            if *json {
                outln!("{}", serde_json::to_string_pretty(&result)?)?;
            } else {
                print_result(&result)?;
            }
            Ok(if result.success {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(EXIT_FAILED)
            })
        }
        Command::Status { json, ready: true } => {
            cluster::ready(&control_socket(&cli, &config)?, *json).await
        }
        Command::Status { json, ready: false } => {
            let socket = control_socket(&cli, &config)?;
            let cluster = cluster::view(&config).await;
            let target = target(&cli, config, OneShotWait::Listing).await?;
            let (mut status, answered_by) = match &target {
                Target::Remote(client) => (client.status().await.map_err(|e| anyhow!(e))?, "serve"),
                Target::Local(host, _) => (serde_json::to_value(host.status())?, "one-shot"),
            };
            let code = target.finish().await;
            if let serde_json::Value::Object(fields) = &mut status {
                fields.insert("answered_by".to_owned(), answered_by.into());
                fields.insert(
                    "control_socket".to_owned(),
                    socket.display().to_string().into(),
                );
                if let Some(cluster) = cluster {
                    fields.insert("cluster".to_owned(), cluster);
                }
            }
            if *json {
                outln!("{}", serde_json::to_string_pretty(&status)?)?;
            } else {
                print_status(&status)?;
            }
            Ok(code)
        }
        Command::Reload { .. } => unreachable!("handled above"),
        Command::Restart { name } => {
            let socket = control_socket(&cli, &config)?;
            let client = ControlClient::connect(&socket).await.ok_or_else(|| {
                anyhow!(
                    "no maitool serve is running on {} (restart acts on a running host)",
                    socket.display()
                )
            })?;
            client.restart(name).await.map_err(|e| anyhow!(e))?;
            outln!("restarting runner {name} (`maitool status` shows when it is ready)")?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Enable(toggle) | Command::Disable(toggle) => {
            let enabled = matches!(cli.command, Command::Enable(_));
            let socket = control_socket(&cli, &config)?;
            let client = ControlClient::connect(&socket).await.ok_or_else(|| {
                anyhow!(
                    "no maitool serve is running on {} (enable/disable change a running host)",
                    socket.display()
                )
            })?;
            let full_name = client
                .toggle(&toggle.name, enabled, toggle.session.clone())
                .await
                .map_err(|e| anyhow!(e))?;
            let scope = toggle
                .session
                .as_ref()
                .map(|s| format!(" for session {s}"))
                .unwrap_or_default();
            outln!(
                "{} {full_name}{scope}",
                if enabled { "enabled" } else { "disabled" }
            )?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

async fn reload(socket: &std::path::Path, json: bool) -> Result<ExitCode> {
    let client = ControlClient::connect(socket).await.ok_or_else(|| {
        anyhow!(
            "no maitool serve is running on {} (reload changes a running host)",
            socket.display()
        )
    })?;
    let report = client.reload().await.map_err(|e| anyhow!(e.message))?;
    if json {
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        print_reload(&report)?;
    }
    // A plugin that refused its new configuration (or could not be unloaded) kept the old
    // one, and one whose new configuration is invalid is paused: the reload did not do all it
    // was asked to.
    let refused = ["rejected", "paused"].iter().any(|key| {
        report["plugins"][*key]
            .as_array()
            .is_some_and(|listed| !listed.is_empty())
    });
    Ok(if refused {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn print_reload(report: &serde_json::Value) -> Result<()> {
    let list = |value: &serde_json::Value| -> String {
        let items: Vec<&str> = value
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str())
            .collect();
        if items.is_empty() {
            "-".to_owned()
        } else {
            items.join(", ")
        }
    };
    let plugins = &report["plugins"];
    outln!("reloaded")?;
    for key in [
        "added",
        "removed",
        "restarted",
        "reconfigured",
        "unloaded",
        "rejected",
        "paused",
        "unchanged",
    ] {
        outln!("  {key:13} {}", list(&plugins[key]))?;
    }
    outln!(
        "  builtin       {}",
        if report["builtin_reloaded"] == true {
            "rebuilt"
        } else {
            "unchanged"
        }
    )?;
    outln!(
        "  mcp           {}",
        if report["mcp_reloaded"] == true {
            "reconnected"
        } else {
            "unchanged"
        }
    )?;
    // Pools only when one changed: most configurations have none.
    for key in ["added", "removed", "restarted", "reconfigured", "failed"] {
        let pools = list(&report["pools"][key]);
        if pools != "-" {
            outln!("  pools {key:7} {pools}")?;
        }
    }
    let restart = list(&report["requires_restart"]);
    if restart != "-" {
        outln!("  needs a restart to apply: {restart}")?;
    }
    Ok(())
}
