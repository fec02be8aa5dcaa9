//! `maitool prepare [RUNNER]...`: the Python environments of MaiBot runners, prepared ahead
//! of time through the same path `serve` takes on a runner's first start. Steps and the
//! installers' output go to stderr; the outcome per runner to stdout. Exit 0 when every
//! environment is prepared and every plugin's dependencies installed, 1 when a plugin's were
//! refused or failed (it will not load; the reason is printed), 3 when an environment could
//! not be prepared, 2 for a runner name that is not a MaiBot runner of the configuration.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Result, anyhow};
use serde::Serialize;

use crate::LoadedConfig;
use crate::cli::output::outln;
use crate::cli::{EXIT_FAILED, EXIT_SOURCE_FAILED};
use crate::maibot_env::{self, Mode, PrepareObserver};

/// The outcome for one runner, as `--json` prints it.
#[derive(Debug, Serialize)]
struct RunnerOutcome {
    runner: String,
    /// The interpreter the runner will run.
    python: String,
    /// Whether its environment is prepared.
    prepared: bool,
    /// Why not.
    error: Option<String>,
    /// What was done; empty when it was up to date.
    done: Vec<String>,
    /// Plugins that will not load, and why.
    blocked: std::collections::BTreeMap<String, String>,
}

/// Steps and output lines on stderr, prefixed with the runner.
struct Terminal<'a> {
    runner: &'a str,
}

impl PrepareObserver for Terminal<'_> {
    fn step(&self, step: &str) {
        let _ = writeln!(
            std::io::stderr(),
            "maitool prepare: {}: {step}",
            self.runner
        );
    }
    fn output(&self, line: &str) {
        let _ = writeln!(std::io::stderr(), "    {line}");
    }
}

pub(super) async fn prepare(
    config: LoadedConfig,
    names: &[String],
    json: bool,
) -> Result<ExitCode> {
    let maibot: Vec<_> = config
        .runners
        .iter()
        .filter_map(|runner| runner.maibot.as_ref().map(|m| (runner, m)))
        .collect();
    for name in names {
        if !maibot.iter().any(|(runner, _)| &runner.name == name) {
            let known: Vec<&str> = maibot.iter().map(|(r, _)| r.name.as_str()).collect();
            return Err(anyhow!(
                "no enabled MaiBot runner (kind = \"maibot\") named {name} in the configuration (MaiBot runners: {})",
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            ));
        }
    }
    let mut outcomes = Vec::new();
    for (runner, launch) in maibot
        .iter()
        .filter(|(runner, _)| names.is_empty() || names.contains(&runner.name))
    {
        let target = launch.env_target(&runner.name, &runner.plugins);
        let observer = Terminal {
            runner: &runner.name,
        };
        let outcome = match maibot_env::prepare(&target, Mode::Install, &observer).await {
            Ok(prepared) => RunnerOutcome {
                runner: runner.name.clone(),
                python: prepared.python.display().to_string(),
                prepared: true,
                error: None,
                done: prepared.done,
                blocked: prepared.blocked,
            },
            Err(err) => RunnerOutcome {
                runner: runner.name.clone(),
                python: target.settings.python().display().to_string(),
                prepared: false,
                error: Some(crate::error_text::chain(&err)),
                done: Vec::new(),
                blocked: Default::default(),
            },
        };
        outcomes.push(outcome);
    }
    if json {
        outln!("{}", serde_json::to_string_pretty(&outcomes)?)?;
    } else if outcomes.is_empty() {
        outln!("no MaiBot runner in the configuration: nothing to prepare")?;
    } else {
        for outcome in &outcomes {
            print_outcome(outcome)?;
        }
    }
    Ok(if outcomes.iter().any(|o| !o.prepared) {
        ExitCode::from(EXIT_SOURCE_FAILED)
    } else if outcomes.iter().any(|o| !o.blocked.is_empty()) {
        ExitCode::from(EXIT_FAILED)
    } else {
        ExitCode::SUCCESS
    })
}

fn print_outcome(outcome: &RunnerOutcome) -> Result<()> {
    if let Some(error) = &outcome.error {
        outln!("runner {}: not prepared: {error}", outcome.runner)?;
        return Ok(());
    }
    outln!("runner {}: prepared ({})", outcome.runner, outcome.python)?;
    if outcome.done.is_empty() {
        outln!("  up to date: nothing was installed")?;
    }
    for line in &outcome.done {
        outln!("  {line}")?;
    }
    for (plugin, reason) in &outcome.blocked {
        outln!("  plugin {plugin} will not load: {reason}")?;
    }
    Ok(())
}
