//! [`PluginTest`]: what the test host grants, stores and passes, before the plugin starts.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use maitool_protocol::rpc::{PeerConfig, RpcPeer};
use maitool_protocol::wire::methods::PluginBootstrap;
use maitool_protocol::{JsonObject, ToolExecutionContext};
use maitool_runner::LaunchEnv;
use parking_lot::Mutex;
use serde_json::Value;
use tokio::sync::oneshot;

use super::capabilities::{Capabilities, CapabilityFn};
use super::host::{HostState, TestHost};
use super::{RunningPlugin, TestError};
use crate::Plugin;
use maitool_protocol::rpc::RpcError;

/// How long the runner may take to load the plugin and report ready.
const READY_TIMEOUT: Duration = Duration::from_secs(10);
/// Bytes in flight each way on the in-memory connection.
const PIPE_CAPACITY: usize = 1 << 16;
const SESSION_TOKEN: &str = "maitool-test-session";

/// A plugin test: the plugin, and what the test host grants, stores and passes to it.
/// [`start`](Self::start) runs it.
///
/// ```
/// use maitool_sdk::prelude::*;
/// use maitool_sdk::testing::PluginTest;
///
/// let test = PluginTest::new(Plugin::new("examples.notes", "1.0.0"))
///     .grant("kv.*")
///     .config(json!({ "greeting": "hi" }))
///     .kv_entry("motd", json!("welcome"))
///     .group("group-1");
/// # let _ = test;
/// ```
pub struct PluginTest {
    plugin: Plugin,
    grants: Vec<String>,
    config: Value,
    data_dir: Option<PathBuf>,
    context: ToolExecutionContext,
    kv: BTreeMap<String, Value>,
    custom: HashMap<String, Arc<CapabilityFn>>,
}

impl std::fmt::Debug for PluginTest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PluginTest")
            .field("plugin", &self.plugin)
            .field("grants", &self.grants)
            .field("context", &self.context)
            .finish_non_exhaustive()
    }
}

impl PluginTest {
    /// A test of `plugin` with no grants, an empty configuration, an empty kv store, and a
    /// private chat as context: session `test-session`, stream `test-stream`, user
    /// `test-user`, platform `test`.
    pub fn new(plugin: Plugin) -> Self {
        PluginTest {
            plugin,
            grants: Vec::new(),
            config: Value::Object(JsonObject::new()),
            data_dir: None,
            context: ToolExecutionContext {
                session_id: "test-session".into(),
                stream_id: "test-stream".into(),
                user_id: "test-user".into(),
                platform: "test".into(),
                is_group_chat: Some(false),
                ..ToolExecutionContext::default()
            },
            kv: BTreeMap::new(),
            custom: HashMap::new(),
        }
    }

    /// Grants a capability, as the operator's `capabilities` list does: an exact name
    /// (`send.text`), a family (`kv.*`) or `*` (everything but `component.*`). A call to a
    /// capability not granted fails as with the host: `E_CAPABILITY_DENIED`, "plugin ID is
    /// not granted capability NAME".
    pub fn grant(mut self, capability: impl Into<String>) -> Self {
        self.grants.push(capability.into());
        self
    }

    /// The operator's configuration of the plugin (its TOML table, as JSON): merged over the
    /// typed configuration's defaults and validated at load, as by the host.
    pub fn config(mut self, config: Value) -> Self {
        self.config = config;
        self
    }

    /// The plugin's private data directory ([`ToolContext::data_dir`](crate::ToolContext::data_dir)).
    /// The test creates it (a temporary directory, say); none by default.
    pub fn data_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.data_dir = Some(dir.into());
        self
    }

    /// A key the plugin's kv store holds from the start.
    pub fn kv_entry(mut self, key: impl Into<String>, value: Value) -> Self {
        self.kv.insert(key.into(), value);
        self
    }

    /// The context of every call (see [`RunningPlugin::call_in`] for one call).
    pub fn context(mut self, context: ToolExecutionContext) -> Self {
        self.context = context;
        self
    }

    /// Calls come from this stream (where `send.*` deliver).
    pub fn stream_id(mut self, stream_id: impl Into<String>) -> Self {
        self.context.stream_id = stream_id.into();
        self
    }

    /// Calls come from this group chat.
    pub fn group(mut self, group_id: impl Into<String>) -> Self {
        self.context.group_id = group_id.into();
        self.context.is_group_chat = Some(true);
        self
    }

    /// Calls come from this user.
    pub fn user_id(mut self, user_id: impl Into<String>) -> Self {
        self.context.user_id = user_id.into();
        self
    }

    /// Serves a capability the test host does not serve itself (it serves `kv.*` and
    /// `send.*`): `handler` gets the call's arguments and gives its result or error. The
    /// capability must still be granted. Ungranted, unserved capabilities fail with
    /// `E_CAPABILITY_FAILED`.
    ///
    /// ```
    /// use maitool_sdk::prelude::*;
    /// use maitool_sdk::testing::PluginTest;
    ///
    /// let test = PluginTest::new(Plugin::new("examples.bot", "1.0.0"))
    ///     .grant("config.get")
    ///     .serve("config.get", |_args| Ok(json!({ "nickname": "Mai" })));
    /// # let _ = test;
    /// ```
    pub fn serve<F>(mut self, capability: impl Into<String>, handler: F) -> Self
    where
        F: Fn(&JsonObject) -> Result<Value, RpcError> + Send + Sync + 'static,
    {
        self.custom.insert(capability.into(), Arc::new(handler));
        self
    }

    /// Starts the plugin: the runner connects over an in-memory stream, loads it
    /// (configuration, registration, `on_load`) and reports ready. Must run inside a tokio
    /// runtime (`#[tokio::test]`).
    ///
    /// Fails with [`TestError::LoadFailed`] when the plugin does not load (a bad
    /// configuration, a failed `on_load`), with the reason the host would log.
    pub async fn start(self) -> Result<RunningPlugin, TestError> {
        let Value::Object(config) = self.config else {
            return Err(TestError::NotAnObject("the configuration", self.config));
        };
        let spec = self.plugin.into_spec();
        let plugin_id = spec.id.clone();
        let (ready_tx, ready_rx) = oneshot::channel();
        let state = Arc::new(HostState {
            plugin_id: plugin_id.clone(),
            session_token: SESSION_TOKEN.to_owned(),
            bootstrap: PluginBootstrap {
                enabled: true,
                config,
                config_version: "1".into(),
                capabilities: self.grants.clone(),
                data_dir: self
                    .data_dir
                    .map(|dir| dir.display().to_string())
                    .unwrap_or_default(),
            },
            capabilities: Capabilities {
                grants: self.grants,
                custom: self.custom,
                kv: Mutex::new(self.kv),
                sent: Mutex::new(Vec::new()),
                calls: Mutex::new(Vec::new()),
            },
            declarations: Mutex::new(Vec::new()),
            config_error: Mutex::new(None),
            ready: Mutex::new(Some(ready_tx)),
            routed: Mutex::new(Vec::new()),
        });
        let (host_end, runner_end) = tokio::io::duplex(PIPE_CAPACITY);
        let peer = RpcPeer::start(
            host_end,
            Arc::new(TestHost(state.clone())),
            PeerConfig::new("maitool-test-host"),
        );
        let env = LaunchEnv {
            address: String::new(),
            session_token: SESSION_TOKEN.to_owned(),
            runner_name: "maitool-test".to_owned(),
        };
        let mut runner = tokio::spawn(maitool_runner::serve_stream(
            runner_end,
            env,
            vec![spec],
            None,
        ));
        let ready = tokio::select! {
            ready = tokio::time::timeout(READY_TIMEOUT, ready_rx) => match ready {
                Ok(Ok(ready)) => ready,
                Ok(Err(_)) => return Err(TestError::NotReady("the host state was dropped".into())),
                Err(_) => return Err(TestError::NotReady(format!("no runner.ready within {READY_TIMEOUT:?}"))),
            },
            ended = &mut runner => return Err(match ended {
                Ok(Err(err)) => TestError::Runner(err),
                Ok(Ok(())) => TestError::NotReady("the runner stopped during its start".into()),
                Err(join) => TestError::NotReady(format!("the runner task failed: {join}")),
            }),
        };
        if !ready.loaded_plugins.contains(&plugin_id) {
            let reason = ready
                .failed_plugin_reasons
                .get(&plugin_id)
                .cloned()
                .unwrap_or_else(|| "the runner did not load it".to_owned());
            return Err(TestError::LoadFailed { plugin_id, reason });
        }
        // Loaded, but paused by the host until a valid configuration arrives: for a test,
        // the start failed.
        if let Some(problem) = state.config_error.lock().clone() {
            return Err(TestError::LoadFailed {
                plugin_id,
                reason: format!("invalid configuration: {problem}"),
            });
        }
        Ok(RunningPlugin::new(peer, state, runner, self.context))
    }
}
