//! Starts a real plugin runtime over real runner executables for a test.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use maitool_host::ToolRegistry;
use maitool_host::plugin::{
    CapabilityService, KvStore, MemorySink, PluginRuntime, PluginSettings, ResolvedRunner,
    RunnerState, RunnerStatus, RuntimeConfig,
};
use maitool_host::sandbox::SandboxSettings;
use maitool_protocol::{ToolExecutionContext, ToolExecutionResult, ToolInvocation};

use crate::workspace_bin;

/// One runner to launch.
#[derive(Debug, Clone)]
pub struct RunnerSpec {
    /// Runner name.
    pub name: String,
    /// Example binary name.
    pub binary: String,
    /// Extra environment.
    pub env: BTreeMap<String, String>,
    /// Plugin settings.
    pub plugins: BTreeMap<String, PluginSettings>,
    /// The runner's sandbox (`[runners.sandbox]`).
    pub sandbox: SandboxSettings,
}

impl RunnerSpec {
    /// A runner of an example binary with default settings.
    pub fn new(name: &str, binary: &str) -> Self {
        Self {
            name: name.into(),
            binary: binary.into(),
            env: BTreeMap::new(),
            plugins: BTreeMap::new(),
            sandbox: SandboxSettings::default(),
        }
    }

    /// Sets an environment variable.
    pub fn env(mut self, key: &str, value: &str) -> Self {
        self.env.insert(key.into(), value.into());
        self
    }

    /// Sets a plugin's settings.
    pub fn plugin(mut self, id: &str, settings: PluginSettings) -> Self {
        self.plugins.insert(id.into(), settings);
        self
    }

    /// Lets the runner's sandbox read and execute `path` (what a wrapper script runs).
    pub fn reads(mut self, path: &std::path::Path) -> Self {
        self.sandbox.read.push(path.to_path_buf());
        self
    }

    /// Lets the runner's sandbox write `path` (a file the test reads back).
    pub fn writes(mut self, path: &std::path::Path) -> Self {
        self.sandbox.write.push(path.to_path_buf());
        self
    }
}

/// A runtime plus a registry with its provider.
#[allow(missing_debug_implementations)]
pub struct Harness {
    /// The runtime.
    pub runtime: Arc<PluginRuntime>,
    /// The registry with the plugin provider registered.
    pub registry: Arc<ToolRegistry>,
    /// Where `send.*` capabilities delivered.
    pub sink: Arc<MemorySink>,
}

/// Fast supervision settings for tests (health checks every 200 ms).
pub fn fast_config() -> RuntimeConfig {
    RuntimeConfig {
        health_check_interval_ms: 200,
        health_check_timeout_ms: 300,
        restart_window_ms: 30_000,
        max_restarts: 5,
        shutdown_grace_ms: 1000,
        terminate_grace_ms: 500,
        ..RuntimeConfig::default()
    }
}

impl Harness {
    /// Starts the runners and waits for them to settle.
    pub async fn start(config: RuntimeConfig, runners: Vec<RunnerSpec>) -> Harness {
        crate::logs::capture();
        let sink = Arc::new(MemorySink::default());
        let capabilities = Arc::new(CapabilityService::new(
            sink.clone(),
            KvStore::in_memory().expect("kv store"),
        ));
        let resolved = runners
            .into_iter()
            .map(|spec| ResolvedRunner {
                env: spec.env,
                plugins: spec.plugins,
                sandbox: spec.sandbox,
                ..ResolvedRunner::maitool(spec.name, workspace_bin(&spec.binary))
            })
            .collect();
        let runtime = PluginRuntime::start(config, resolved, capabilities.clone(), None)
            .expect("runtime starts");
        let registry = Arc::new(ToolRegistry::new());
        registry.register_provider(runtime.provider());
        capabilities.attach_registry(&registry);
        capabilities.attach_runtime(&runtime);
        runtime.wait_settled(Duration::from_secs(20)).await;
        Harness {
            runtime,
            registry,
            sink,
        }
    }

    /// The status of one runner.
    pub fn runner(&self, name: &str) -> RunnerStatus {
        self.runtime
            .status()
            .into_iter()
            .find(|r| r.name == name)
            .expect("runner exists")
    }

    /// Waits until `name` reaches `state` (bounded, so a test never hangs).
    pub async fn wait_state(
        &self,
        name: &str,
        state: RunnerState,
        limit: Duration,
    ) -> RunnerStatus {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            let status = self.runner(name);
            if status.state == state {
                return status;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "runner {name} did not reach {state:?} within {limit:?}: {status:?}"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Waits until `name` has restarted at least `count` times and is ready again.
    pub async fn wait_restarted(&self, name: &str, count: u32, limit: Duration) -> RunnerStatus {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            let status = self.runner(name);
            if status.restart_count >= count && status.state == RunnerState::Ready {
                return status;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "runner {name} did not restart {count} times within {limit:?}: {status:?}"
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// Invokes a tool with JSON arguments in a context.
    pub async fn call(
        &self,
        tool: &str,
        args: serde_json::Value,
        ctx: &ToolExecutionContext,
    ) -> ToolExecutionResult {
        let arguments = args.as_object().cloned().unwrap_or_default();
        self.registry
            .invoke(
                ToolInvocation::new(tool, arguments).with_call_id("call-1"),
                ctx,
            )
            .await
    }

    /// Stops the runtime.
    pub async fn stop(self) {
        self.runtime.shutdown().await;
    }
}
