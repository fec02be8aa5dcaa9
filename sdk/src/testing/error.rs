//! Why a harness step failed (as opposed to a tool that ran and failed, which is a result
//! with `success: false`).

use maitool_protocol::rpc::RpcError;

/// A failure of the test harness or of the plugin's lifecycle.
#[derive(Debug, thiserror::Error)]
pub enum TestError {
    /// The plugin did not load: a bad configuration, or an `on_load` that failed or panicked.
    /// `reason` is what the host would log.
    #[error("plugin {plugin_id} failed to load: {reason}")]
    LoadFailed {
        /// The plugin.
        plugin_id: String,
        /// The runner's reason.
        reason: String,
    },
    /// The runner stopped before the plugin was ready.
    #[error("the runner stopped before it was ready: {0}")]
    Runner(#[source] maitool_runner::RunnerError),
    /// The runner did not report ready in time, or its task ended without a word.
    #[error("the runner did not become ready: {0}")]
    NotReady(String),
    /// No tool of that name was registered.
    #[error("the plugin has no tool {name} (it registered: {registered})")]
    UnknownTool {
        /// The name asked for.
        name: String,
        /// The registered names, comma-separated.
        registered: String,
    },
    /// The tool is registered disabled (`enabled(false)`), so the host does not route calls
    /// to it.
    #[error("tool {0} is disabled")]
    Disabled(String),
    /// A call's arguments or the configuration given to the harness were not a JSON object.
    #[error("{0} must be a JSON object, not {1}")]
    NotAnObject(&'static str, serde_json::Value),
    /// The call failed at the RPC level: it timed out after the tool's timeout, or the runner
    /// closed the connection. The host turns these into failed results.
    #[error("the call failed: {0}")]
    Call(#[source] RpcError),
    /// The runner did not stop cleanly after `plugin.shutdown`.
    #[error("the runner did not stop cleanly: {0}")]
    NotStopped(String),
    /// No command of the plugin matches the text.
    #[error("no command matches {text:?} (the plugin's commands: {commands})")]
    NoCommand {
        /// The message's text.
        text: String,
        /// The plugin's commands with their patterns and aliases.
        commands: String,
    },
    /// The plugin refused a configuration update.
    #[error("the configuration update was refused: {0}")]
    ConfigRefused(String),
}
