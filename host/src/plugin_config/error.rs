//! Why a plugin's configuration was not changed.

use std::path::PathBuf;

use super::FieldError;

/// Why a plugin's configuration was not changed; in every case the file and the plugin are
/// as they were.
#[derive(Debug, thiserror::Error)]
pub enum PluginConfigError {
    /// No runner reports this plugin.
    #[error("no plugin {0:?}")]
    NoPlugin(String),
    /// The host runs on built-in defaults: there is no file to save into.
    #[error("the host runs on built-in defaults: there is no configuration file to save into")]
    NoFile,
    /// The host stopped.
    #[error("the host is shutting down")]
    HostGone,
    /// The configuration breaks the plugin's schema.
    #[error("invalid configuration: {}", .0.iter().map(|e| if e.path.is_empty() { e.message.clone() } else { format!("{}: {}", e.path, e.message) }).collect::<Vec<_>>().join("; "))]
    Invalid(Vec<FieldError>),
    /// The raw TOML does not parse.
    #[error("not valid TOML: {message}")]
    RawSyntax {
        /// The parser's message, with the line.
        message: String,
    },
    /// A dotted key crosses a value that is not a table, or has an empty part.
    #[error("key {0:?} does not name a place in the configuration")]
    BadKey(String),
    /// The configuration file does not parse for editing.
    #[error("the configuration file does not parse: {message}")]
    FileSyntax {
        /// The parser's message.
        message: String,
    },
    /// The file has no `[[runners]]` entry of this name to edit.
    #[error("the configuration file has no [[runners]] entry named {runner:?}")]
    NoRunnerEntry {
        /// The runner.
        runner: String,
    },
    /// A key that should hold a table holds something else.
    #[error("{key} is not a table in the configuration file")]
    NotATable {
        /// The key.
        key: String,
    },
    /// The edited file would not load.
    #[error("the edited configuration would not load")]
    WouldNotLoad(#[source] crate::config::ConfigError),
    /// Reading or writing the file failed.
    #[error("{path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The reload failed; the file was put back.
    #[error("the reload failed; the previous file was put back")]
    Reload(#[source] crate::app::ReloadError),
    /// The plugin refused the configuration; the file and the plugin were put back.
    #[error("the plugin refused it, the previous configuration was put back: {0}")]
    Refused(String),
}
