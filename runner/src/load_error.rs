//! Why a plugin did not load. Its text is the reason the runner reports for the plugin in
//! `runner.ready` (`failed_plugin_reasons`) and logs, so each variant reads as one line with
//! its cause.

use maitool_protocol::rpc::RpcError;

/// Why a plugin did not load.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum LoadError {
    /// The host's bootstrap named a data directory by a relative path, which would resolve
    /// against the runner's working directory, somewhere the host never prepared.
    #[error("the host sent a data_dir that is not an absolute path: {0:?}")]
    RelativeDataDir(String),
    /// `plugin.register_components` got no answer, or a failed one.
    #[error("registration failed: {0}")]
    Registration(RpcError),
    /// The host refused the components, for this reason.
    #[error("host refused the components: {0}")]
    Refused(String),
    /// `on_load` returned an error (its own words).
    #[error("on_load failed: {0}")]
    OnLoad(String),
    /// `on_load` panicked with this message.
    #[error("on_load panicked: {0}")]
    Panicked(String),
}
