//! What the section runs: the example plugin in a temporary folder, maitool's host
//! configuration with MaiBot's runner over it (and a Rust echo runner beside it, the reference
//! for the host's CPU per call), and a cold start of that host.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use maitool_host::plugin::{PluginSettings, RunnerConfig, RunnerKind, RuntimeConfig};
use maitool_host::{Host, HostConfig};

use super::{ECHO_TOOL, RUNNER};
use crate::host::{self, host_config};

/// The plugin id of the example plugin with the `echo_text` tool.
const PLUGIN: &str = "examples.maibot_typed";
/// Its files, written into each run's temporary plugin folder: the runner writes into a
/// plugin's folder (`__pycache__`, its `config.toml`), and into its working directory.
const MANIFEST: &str =
    include_str!("../../../../examples/maibot-plugins/typed_tools/_manifest.json");
const PLUGIN_PY: &str = include_str!("../../../../examples/maibot-plugins/typed_tools/plugin.py");

/// The longest a cold start may take before the section fails.
const LIMIT: Duration = Duration::from_secs(30);

/// A temporary folder with `plugins/typed_tools`, the example plugin with `echo_text`: laid
/// out as a MaiBot instance directory, whose third-party plugins are under `plugins/`.
pub fn plugin_dir() -> Result<tempfile::TempDir> {
    let dir = super::python::instance_dir()?;
    let plugin = dir.path().join("plugins").join("typed_tools");
    std::fs::create_dir_all(&plugin)?;
    std::fs::write(plugin.join("_manifest.json"), MANIFEST)?;
    std::fs::write(plugin.join("plugin.py"), PLUGIN_PY)?;
    Ok(dir)
}

/// The benchmark's host configuration with the MaiBot runner [`RUNNER`] over `dir/plugins`,
/// and the benchmark's Rust echo runner (`echo`) when `echo` names it; everything under
/// `dir`, the runner's instance directory (its working directory and logs) too.
pub fn config(
    dir: &Path,
    python: &Path,
    echo: Option<&Path>,
    runtime: RuntimeConfig,
) -> HostConfig {
    let plugins = BTreeMap::from([(
        PLUGIN.to_owned(),
        PluginSettings {
            capabilities: vec!["send.text".to_owned()],
            ..PluginSettings::default()
        },
    )]);
    let maibot = RunnerConfig {
        kind: RunnerKind::Maibot,
        executable: None,
        python: Some(python.to_path_buf()),
        plugin_dirs: vec![dir.join("plugins")],
        plugins,
        ..RunnerConfig::executable(RUNNER, "")
    };
    let base = match echo {
        Some(echo) => host_config(dir, echo, 1, runtime),
        None => host_config(dir, Path::new(""), 0, runtime),
    };
    let mut runners = base.runners.clone();
    runners.push(maibot);
    HostConfig { runners, ..base }
}

/// `Host::start` with the MaiBot runner alone until `echo_text` first answers; the time from
/// before the start.
pub async fn cold_start(python: &Path) -> Result<Duration> {
    let dir = plugin_dir()?;
    let config =
        config(dir.path(), python, None, RuntimeConfig::default()).resolve(None, dir.path())?;
    let started = Instant::now();
    let host = Host::start(config)
        .await
        .context("the host did not start")?;
    let answered = loop {
        match host::try_call(&host.registry, ECHO_TOOL).await {
            Ok(()) => break Ok(started.elapsed()),
            Err(message) if started.elapsed() > LIMIT => {
                break Err(anyhow::anyhow!(
                    "echo_text did not answer within {LIMIT:?} of the start: {message}"
                ));
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(1)).await,
        }
    };
    host.shutdown().await;
    answered
}
