//! The host under test: a real `maitool_host::Host` (what `maitool serve` runs) over echo
//! runners, configured through the same `HostConfig` an operator writes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use maitool_host::config::HostSection;
use maitool_host::plugin::{RunnerConfig, RunnerStatus, RuntimeConfig};
use maitool_host::{Host, HostConfig, ToolRegistry};
use maitool_protocol::ToolInvocation;

use crate::floor::{bench_context, echo_arguments};

/// The tool name of runner `index` when several runners are configured.
pub fn tool_of(index: usize) -> String {
    format!("echo{index}")
}

/// A host configuration with `runners` echo runners (runner `i` serves plugin
/// `bench.echo{i}` with tool `echo{i}`; a single runner serves `bench.echo` / `echo`), no
/// built-in tools and no MCP, everything kept under `dir`.
pub fn host_config(dir: &Path, echo: &Path, runners: usize, runtime: RuntimeConfig) -> HostConfig {
    let runners = (0..runners)
        .map(|index| {
            let (plugin, tool) = if runners == 1 {
                ("bench.echo".to_owned(), "echo".to_owned())
            } else {
                (format!("bench.echo{index}"), tool_of(index))
            };
            let env = BTreeMap::from([
                ("BENCH_PLUGIN_ID".to_owned(), plugin),
                ("BENCH_TOOL_NAME".to_owned(), tool),
            ]);
            RunnerConfig {
                env,
                ..RunnerConfig::executable(format!("echo{index}"), echo)
            }
        })
        .collect();
    HostConfig {
        host: HostSection {
            socket_dir: Some(dir.to_path_buf()),
            control_socket: dir.join("control.sock"),
            data_dir: dir.join("data"),
            enable_builtin: false,
            ..HostSection::default()
        },
        plugin_runtime: runtime,
        runners,
        ..HostConfig::default()
    }
}

/// Writes `config` as `maitool.toml` in `dir` (for `maitool serve`); returns its path.
pub fn write_config(dir: &Path, config: &HostConfig) -> Result<PathBuf> {
    let path = dir.join("maitool.toml");
    let text = toml::to_string(config).context("cannot render the host configuration")?;
    std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}

/// A running in-process host and its directory.
pub struct BenchHost {
    /// The host.
    pub host: Host,
    _dir: tempfile::TempDir,
}

impl std::fmt::Debug for BenchHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BenchHost").finish_non_exhaustive()
    }
}

impl BenchHost {
    /// Starts a host with `runners` echo runners and waits until they are ready.
    pub async fn start(echo: &Path, runners: usize, runtime: RuntimeConfig) -> Result<BenchHost> {
        let dir = tempfile::Builder::new().prefix("maitool-bench").tempdir()?;
        let config = host_config(dir.path(), echo, runners, runtime);
        BenchHost::start_in(dir, config).await
    }

    /// Starts a host with `config`, whose files are under `dir` (removed when the host is
    /// dropped), and waits until its runners are ready.
    pub async fn start_in(dir: tempfile::TempDir, config: HostConfig) -> Result<BenchHost> {
        let config = config.resolve(None, dir.path())?;
        let host = Host::start(config)
            .await
            .context("the host did not start")?;
        let bench = BenchHost { host, _dir: dir };
        for status in bench.host.plugins.status() {
            if status.state != maitool_host::plugin::RunnerState::Ready {
                bail!("runner {} is not ready: {status:?}", status.name);
            }
        }
        Ok(bench)
    }

    /// The registry.
    pub fn registry(&self) -> &Arc<ToolRegistry> {
        &self.host.registry
    }

    /// The first runner's status.
    pub fn runner(&self) -> Result<RunnerStatus> {
        self.host
            .plugins
            .status()
            .into_iter()
            .next()
            .context("no runner configured")
    }

    /// The status of the runner called `name`.
    pub fn runner_named(&self, name: &str) -> Result<RunnerStatus> {
        self.host
            .plugins
            .status()
            .into_iter()
            .find(|status| status.name == name)
            .with_context(|| format!("no runner called {name}"))
    }

    /// Stops the runners and closes the providers.
    pub async fn stop(self) {
        self.host.shutdown().await;
    }
}

/// One echo call through the registry; an error unless it echoed.
pub async fn call(registry: &ToolRegistry, tool: &str) -> Result<()> {
    try_call(registry, tool)
        .await
        .map_err(|message| anyhow::anyhow!("{tool} failed: {message}"))
}

/// One echo call through the registry; the result's error message unless it echoed.
pub async fn try_call(registry: &ToolRegistry, tool: &str) -> Result<(), String> {
    let result = registry
        .invoke(
            ToolInvocation::new(tool, echo_arguments()),
            &bench_context(),
        )
        .await;
    if !result.success || result.content != "hello" {
        return Err(if result.success {
            format!("echoed {:?}", result.content)
        } else {
            // The code is in the metadata; the message is what a model reads. The restart
            // sections classify failures by it.
            match result
                .metadata
                .get("error_code")
                .and_then(|code| code.as_str())
            {
                Some(code) if !result.error_message.contains(code) => {
                    format!("[{code}] {}", result.error_message)
                }
                _ => result.error_message,
            }
        });
    }
    Ok(())
}

/// `count` sequential calls; the latency of each is pushed to `samples`.
pub async fn sequential(
    registry: &ToolRegistry,
    tool: &str,
    count: usize,
    samples: &mut Vec<Duration>,
) -> Result<()> {
    sequential_with(registry, tool, &echo_arguments(), count, samples).await
}

/// As [`sequential`], with these arguments.
pub async fn sequential_with(
    registry: &ToolRegistry,
    tool: &str,
    arguments: &maitool_protocol::JsonObject,
    count: usize,
    samples: &mut Vec<Duration>,
) -> Result<()> {
    let ctx = bench_context();
    for _ in 0..count {
        let started = Instant::now();
        let result = registry
            .invoke(ToolInvocation::new(tool, arguments.clone()), &ctx)
            .await;
        samples.push(started.elapsed());
        if !result.success {
            bail!("{tool} failed: {}", result.error_message);
        }
    }
    Ok(())
}

/// `total` calls from `concurrency` tasks (each calls again as soon as its call returns);
/// calls per second and how many failed.
pub async fn concurrent(
    registry: &Arc<ToolRegistry>,
    tool: &str,
    concurrency: usize,
    total: usize,
) -> Result<(f64, usize)> {
    let issued = Arc::new(AtomicUsize::new(0));
    let failed = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let tasks: Vec<_> = (0..concurrency)
        .map(|_| {
            let (registry, issued, failed, tool) = (
                registry.clone(),
                issued.clone(),
                failed.clone(),
                tool.to_owned(),
            );
            tokio::spawn(async move {
                let ctx = bench_context();
                let arguments = echo_arguments();
                while issued.fetch_add(1, Ordering::Relaxed) < total {
                    let result = registry
                        .invoke(ToolInvocation::new(tool.as_str(), arguments.clone()), &ctx)
                        .await;
                    if !result.success {
                        failed.fetch_add(1, Ordering::Relaxed);
                    }
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.context("a load task panicked")?;
    }
    let rate = total as f64 / started.elapsed().as_secs_f64();
    Ok((rate, failed.load(Ordering::Relaxed)))
}
