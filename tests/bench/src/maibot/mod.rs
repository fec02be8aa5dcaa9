//! Section 7: the `echo_text` tool of a MaiBot plugin (`examples/maibot-plugins/typed_tools`,
//! written against `maibot-plugin-sdk`), run by MaiBot's own Python runner under two hosts in
//! the same run: maitool's in-process host (a `kind = "maibot"` runner, as in the invoke
//! section) and MaiBot's own host, its supervisor and tool registry driven by
//! `tests/bench/maibot_host_driver.py` (`own_host`). Both run the same runner with the same
//! interpreter, the same plugin and the same calls; the tracked figures are ratios between
//! them (`compare`). Then, under maitool's host alone: SIGKILL of the runner until `echo_text`
//! answers again, against the bare interpreter's start-up (`restart`), and a cold start until
//! it first answers (`setup`).
//!
//! MaiBot is installed by `.ci/install-maibot-host.sh` (`python` finds it). Without it the
//! section is skipped with a loud message and its keys are null (`meta.maibot_skipped` says
//! why); with `MAITOOL_REQUIRE_MAIBOT=1` (CI) a missing install fails the section.

mod compare;
mod own_host;
mod python;
mod restart;
mod setup;

use anyhow::{Context, Result};
use maitool_host::plugin::RuntimeConfig;

use crate::bins::Bins;
use crate::floor::{bench_context, echo_arguments};
use crate::host::BenchHost;
use crate::plan::Plan;
use crate::report::Report;
use crate::stats::{median, millis};
use own_host::OwnHost;

const SECTION: &str = "7 maibot";

/// The keys the project tracks for this section.
pub use crate::keys::MAIBOT as KEYS;

/// The example plugin's echo tool (`{"text": ...}` → the text).
pub const ECHO_TOOL: &str = "echo_text";
/// The name of the MaiBot runner in maitool's host configuration.
const RUNNER: &str = "maibot";
/// The benchmark's Rust echo runner beside it (`host_config`'s name for a single echo runner),
/// and its tool.
const RUST_RUNNER: &str = "echo0";
const RUST_TOOL: &str = "echo";

/// Runs the section into `report`, or skips it loudly when MaiBot is not installed.
pub async fn run(bins: &Bins, plan: &Plan, report: &mut Report) -> Result<()> {
    let python = match python::find()? {
        Ok(python) => python,
        Err(reason) => {
            report.skip(SECTION, &reason);
            report.note("maibot_skipped", reason);
            report.absent(SECTION, KEYS);
            return Ok(());
        }
    };
    report.note("maibot_python", python.display().to_string());

    let mut cold = Vec::with_capacity(plan.maibot_starts);
    for _ in 0..plan.maibot_starts {
        cold.push(millis(setup::cold_start(&python).await?));
    }
    report.add(
        SECTION,
        "maibot_runner_cold_start_ms",
        &format!(
            "Host::start to echo_text answered, median of {}",
            plan.maibot_starts
        ),
        median(&cold),
        "ms",
    );

    // As in the restart section: each kill is the first in its restart window, so the
    // supervisor restarts at once and the figure is the restart's, not the backoff's.
    let runtime = RuntimeConfig {
        restart_window_ms: 1,
        max_restarts: 1_000,
        restart_backoff_initial_ms: 0,
        ..RuntimeConfig::default()
    };
    let dir = setup::plugin_dir()?;
    let config = setup::config(dir.path(), &python, Some(&bins.echo), runtime);
    let bench = BenchHost::start_in(dir, config).await?;
    let outcome = measure(&bench, &python, plan, report).await;
    bench.stop().await;
    outcome
}

/// The measurements on maitool's running host: the comparison with MaiBot's own host, which
/// runs only for it, then the restarts.
async fn measure(
    bench: &BenchHost,
    python: &std::path::Path,
    plan: &Plan,
    report: &mut Report,
) -> Result<()> {
    // MaiBot's instance directory, with its own copy of the plugin under `plugins/` (the
    // runner writes into a plugin's folder).
    let instance = setup::plugin_dir()?;
    let mut own = OwnHost::start(
        python,
        instance.path(),
        &instance.path().join("plugins"),
        ECHO_TOOL,
        &echo_arguments(),
        &bench_context(),
    )
    .await?;
    let compared = compare::run(bench, &mut own, plan, report).await;
    let stopped = own.stop().await;
    compared?;
    stopped?;
    restart::run(bench, python, plan, report).await
}

/// For `--load maibot`: maitool's host with MaiBot's runner alone (as in the cold start), and
/// the runner's pid.
pub async fn load_host(runtime: RuntimeConfig) -> Result<(BenchHost, u32)> {
    let python = python::find()?.map_err(anyhow::Error::msg)?;
    let dir = setup::plugin_dir()?;
    let config = setup::config(dir.path(), &python, None, runtime);
    let bench = BenchHost::start_in(dir, config).await?;
    let runner = bench
        .runner_named(RUNNER)?
        .pid
        .context("the runner has no pid")?;
    Ok((bench, runner))
}
