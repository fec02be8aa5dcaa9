//! The maitool host library.
//!
//! The host keeps the unified [`ToolRegistry`](registry::ToolRegistry) over every tool source
//! and the runtime that supervises plugin runner subprocesses. A reasoning engine embeds this
//! crate; operators run it through the `maitool` binary.
//!
//! * [`provider`]: the [`ToolProvider`](provider::ToolProvider) trait every tool source implements.
//! * [`registry`]: the [`ToolRegistry`](registry::ToolRegistry) that lists and routes.
//! * [`plugin`]: the plugin runtime: runner supervisor, component registry, `PluginToolProvider`.
//! * [`builtin`]: the engine's built-in tools and the tool-call executor.
//! * [`mcp`]: tools of external MCP servers.
//! * [`metrics`]: per-tool call statistics, the Prometheus endpoint, start-up progress.
//! * [`front`]: the registry exposed as an MCP server (`maitool serve --mcp-stdio|--mcp-http`).
//! * `cli` (feature `cli`, on by default): the `maitool` binary's command line.

pub mod app;
pub mod builtin;
#[cfg(feature = "cli")]
pub mod cli;
pub mod config;
pub mod control;
pub mod front;
pub mod mcp;
pub mod metrics;
pub mod plugin;
pub mod provider;
pub mod registry;
mod sqlite;

pub use app::{Host, HostError, HostStatus};

#[cfg(feature = "cli")]
macro_rules! cli_feature {
    () => {
        " cli"
    };
}
#[cfg(not(feature = "cli"))]
macro_rules! cli_feature {
    () => {
        ""
    };
}
#[cfg(feature = "mimalloc")]
macro_rules! mimalloc_feature {
    () => {
        " mimalloc"
    };
}
#[cfg(not(feature = "mimalloc"))]
macro_rules! mimalloc_feature {
    () => {
        ""
    };
}
#[cfg(feature = "http")]
macro_rules! http_feature {
    () => {
        " http"
    };
}
#[cfg(not(feature = "http"))]
macro_rules! http_feature {
    () => {
        ""
    };
}

/// The cargo features this library was built with, space-separated (`maitool --version`
/// shows them): a build without `http` speaks MCP over stdio only.
pub const FEATURES: &str =
    concat!(cli_feature!(), mimalloc_feature!(), http_feature!()).trim_ascii();

/// `maitool --version`: the version and [`FEATURES`].
#[cfg(feature = "cli")]
const VERSION_LINE: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (features:",
    cli_feature!(),
    mimalloc_feature!(),
    http_feature!(),
    ")"
);
pub use config::{ConfigError, HostConfig, LoadedConfig};
pub use provider::{ProviderError, ToolProvider, ToolSetVersion};
pub use registry::ToolRegistry;
