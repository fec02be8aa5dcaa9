//! MaiBot's own host, run as a separate program: `tests/bench/maibot_host_driver.py` (ours)
//! imports MaiBot's supervisor, tool registry and plugin tool provider from the installed
//! `maibot` package, starts MaiBot's runner over the same plugin folder as maitool's host, and
//! times the calls it is asked for (one JSON line per request and per answer; the protocol is
//! in the driver's docstring). The benchmark reads the driver's and its runner's CPU time from
//! `/proc` around each request, as it does for maitool's host.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use maitool_protocol::{JsonObject, ToolExecutionContext};

/// The driver, compiled into the benchmark and written next to each run's plugin folder, so
/// that a benchmark built once runs anywhere.
const DRIVER: &str = include_str!("../../maibot_host_driver.py");

/// How long MaiBot's host may take to start its runner and answer a first call, and to stop.
const START_LIMIT: Duration = Duration::from_secs(60);
const STOP_LIMIT: Duration = Duration::from_secs(10);

/// The driver's first line.
#[derive(Debug, Deserialize)]
struct Ready {
    host_pid: u32,
    runner_pid: u32,
}

/// The answer to `sequential`.
#[derive(Debug, Deserialize)]
struct Sequential {
    samples_ns: Vec<u64>,
    failures: BTreeMap<String, usize>,
}

/// The answer to `concurrent`.
#[derive(Debug, Deserialize)]
pub struct Concurrent {
    /// How long the calls took, from the first to the last answer.
    pub seconds: f64,
    /// The error message of each failed call, with how many failed with it.
    pub failures: BTreeMap<String, usize>,
}

impl Concurrent {
    /// How many calls failed.
    pub fn failed(&self) -> usize {
        self.failures.values().sum()
    }
}

/// A running driver: MaiBot's host with its runner.
pub struct OwnHost {
    child: Child,
    stdin: ChildStdin,
    answers: Lines<BufReader<ChildStdout>>,
    /// The driver's process: MaiBot's host.
    pub pid: u32,
    /// The runner MaiBot's supervisor started.
    pub runner_pid: u32,
    /// The driver's standard error.
    log: tempfile::NamedTempFile,
}

impl OwnHost {
    /// Starts MaiBot's host with `python` over the plugins under `plugin_root`, in the MaiBot
    /// instance directory `instance`, calling `tool` with `arguments` in `context`; returns
    /// once `tool` has answered a first call.
    pub async fn start(
        python: &Path,
        instance: &Path,
        plugin_root: &Path,
        tool: &str,
        arguments: &JsonObject,
        context: &ToolExecutionContext,
    ) -> Result<OwnHost> {
        let driver = instance.join("maibot_host_driver.py");
        std::fs::write(&driver, DRIVER)
            .with_context(|| format!("cannot write {}", driver.display()))?;
        // MaiBot logs to the console and logs every refused call with its traceback: the
        // driver's standard error goes to a file, read back when something fails.
        let log = tempfile::NamedTempFile::new()?;
        let context = serde_json::json!({
            "session_id": context.session_id,
            "stream_id": context.stream_id,
        });
        let mut child = Command::new(python)
            .arg(&driver)
            .arg(plugin_root)
            .arg(tool)
            .arg(serde_json::to_string(arguments)?)
            .arg(context.to_string())
            .env("MAIBOT_INSTANCE_DIR", instance)
            .current_dir(instance)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log.reopen()?)
            .kill_on_drop(true)
            .spawn()
            .with_context(|| format!("cannot run {} {}", python.display(), driver.display()))?;
        let stdin = child.stdin.take().context("no stdin")?;
        let answers = BufReader::new(child.stdout.take().context("no stdout")?).lines();
        let mut host = OwnHost {
            child,
            stdin,
            answers,
            pid: 0,
            runner_pid: 0,
            log,
        };
        let ready: Ready = match tokio::time::timeout(START_LIMIT, host.answer()).await {
            Ok(ready) => ready.map_err(|err| host.with_log(err))?,
            Err(_) => bail!(host.with_log(anyhow::anyhow!(
                "MaiBot's host did not start within {START_LIMIT:?}"
            ))),
        };
        host.pid = ready.host_pid;
        host.runner_pid = ready.runner_pid;
        Ok(host)
    }

    /// `calls` sequential calls; the latency of each is pushed to `samples`. An error when
    /// any failed.
    pub async fn sequential(&mut self, calls: usize, samples: &mut Vec<Duration>) -> Result<()> {
        let answer: Sequential = self
            .ask(serde_json::json!({"op": "sequential", "calls": calls}))
            .await?;
        samples.extend(answer.samples_ns.into_iter().map(Duration::from_nanos));
        if !answer.failures.is_empty() {
            bail!(
                "MaiBot's host failed sequential calls: {:?}",
                answer.failures
            );
        }
        Ok(())
    }

    /// `calls` calls from `window` tasks, each calling again as soon as its call returns.
    pub async fn concurrent(&mut self, window: usize, calls: usize) -> Result<Concurrent> {
        self.ask(serde_json::json!({"op": "concurrent", "window": window, "calls": calls}))
            .await
    }

    /// Stops MaiBot's host (which stops its runner) and waits for the driver to exit.
    pub async fn stop(mut self) -> Result<()> {
        let stopped = async {
            self.send(serde_json::json!({"op": "stop"})).await?;
            let _: serde_json::Value = self.answer().await?;
            self.child.wait().await.context("the driver vanished")
        };
        match tokio::time::timeout(STOP_LIMIT, stopped).await {
            Ok(Ok(status)) if status.success() => Ok(()),
            Ok(Ok(status)) => bail!("MaiBot's host exited with {status}"),
            Ok(Err(err)) => Err(err),
            Err(_) => {
                // The benchmark kills every descendant at the end, the orphaned runner too.
                let _ = self.child.start_kill();
                bail!("MaiBot's host did not stop within {STOP_LIMIT:?}")
            }
        }
    }

    async fn ask<T: DeserializeOwned>(&mut self, request: serde_json::Value) -> Result<T> {
        self.send(request).await?;
        self.answer().await.map_err(|err| self.with_log(err))
    }

    async fn send(&mut self, request: serde_json::Value) -> Result<()> {
        let mut line = request.to_string();
        line.push('\n');
        self.stdin
            .write_all(line.as_bytes())
            .await
            .context("cannot write to MaiBot's host driver")
    }

    async fn answer<T: DeserializeOwned>(&mut self) -> Result<T> {
        let line = self
            .answers
            .next_line()
            .await
            .context("cannot read MaiBot's host driver")?
            .context("MaiBot's host driver exited")?;
        let value: serde_json::Value = serde_json::from_str(&line)
            .with_context(|| format!("MaiBot's host driver answered {line:?}"))?;
        if let Some(error) = value.get("error") {
            bail!("MaiBot's host driver: {error}");
        }
        serde_json::from_value(value).with_context(|| format!("unexpected answer {line:?}"))
    }

    /// `error` with the end of the driver's log (MaiBot's own messages and tracebacks).
    fn with_log(&self, error: anyhow::Error) -> anyhow::Error {
        let log = std::fs::read_to_string(self.log.path()).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        let tail = &lines[lines.len().saturating_sub(20)..];
        anyhow::anyhow!(
            "{error:#}; MaiBot's host log ends with:\n{}",
            tail.join("\n")
        )
    }
}
