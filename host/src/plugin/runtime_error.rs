//! Why the plugin runtime could not start, reload a plugin or restart a runner.

use maitool_protocol::rpc::RpcError;

use super::config::RuntimeConfigError;

/// Why the runtime could not start.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    /// The socket could not be created.
    #[error("cannot create the plugin socket")]
    Socket(#[source] std::io::Error),
    /// Two runners share a name.
    #[error("duplicate runner name {0}")]
    DuplicateRunner(String),
    /// The configuration is invalid.
    #[error(transparent)]
    Config(#[from] RuntimeConfigError),
}

/// Why a plugin was not reloaded. The text reaches the plugin that asked
/// (`component.reload_plugin`) and the operator's log.
#[derive(Debug, thiserror::Error)]
pub enum ReloadError {
    /// No runner is configured with, or has registered, the plugin.
    #[error("no runner hosts plugin {0}")]
    NoRunner(String),
    /// The plugin's MaiBot runner is not connected.
    #[error("runner {0} is not connected")]
    NotConnected(String),
    /// The `plugin.reload` call failed.
    #[error(transparent)]
    Call(#[from] RpcError),
    /// The runner tried and failed: its own reason.
    #[error("{0}")]
    Failed(String),
    /// The runner answered without reloading the plugin.
    #[error("runner {0} did not reload it")]
    NotReloaded(String),
}

/// Why a runner was not restarted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RestartError {
    /// No runner has the name.
    #[error("no runner {0}")]
    NoRunner(String),
}
