//! The maitool host library.
//!
//! The host keeps the unified [`ToolRegistry`] over every tool source
//! and the runtime that supervises plugin runner subprocesses. A reasoning engine embeds this
//! crate; operators run it through the `maitool` binary.
//!
//! * [`provider`]: the [`ToolProvider`] trait every tool source implements.
//! * [`registry`]: the [`ToolRegistry`] that lists and routes.
//! * [`tool_name`]: the name a duplicate tool is kept under (MaiBot 1.3's source prefix).
//! * [`circuit`]: circuit breakers per plugin (or any key): fail fast, probe, recover.
//! * [`plugin`]: the plugin runtime: runner supervisor, component registry, `PluginToolProvider`.
//! * [`hook`]: MaiBot's named hooks: where maitool runs them, and how an engine runs the rest.
//! * [`builtin`]: the engine's built-in tools and the tool-call executor.
//! * [`messages`]: the message flow: chat messages in, commands and event handlers run,
//!   messages stored.
//! * [`mcp_client`]: tools of external MCP servers (maitool as an MCP client).
//! * [`metrics`]: per-tool call statistics, the Prometheus endpoint, start-up progress.
//! * [`mcp_server`]: the registry exposed as an MCP server (`maitool serve --mcp-stdio|--mcp-http`).
//! * [`llm`]: tool lists rendered for model APIs (OpenAI, Anthropic, Gemini) and their tool
//!   calls parsed back.
//! * [`maibot_env`]: the Python environment of MaiBot runners, prepared by the host.
//! * `cli` (feature `cli`, on by default): the `maitool` binary's command line.

mod accept;
pub mod app;
pub mod builtin;
pub mod circuit;
#[cfg(feature = "cli")]
pub mod cli;
pub mod cluster;
pub mod config;
pub mod control;
mod error_text;
mod features;
pub mod hook;
pub mod llm;
#[cfg(feature = "web")]
pub mod log_feed;
pub mod maibot_env;
pub mod mcp_client;
pub mod mcp_server;
pub mod messages;
pub mod metrics;
mod parent_death;
pub mod plugin;
pub mod plugin_config;
pub mod postgres;
mod program;
pub mod provider;
pub mod registry;
pub mod render;
pub mod sandbox;
pub mod settle;
pub mod shared_state;
mod sqlite;
pub mod tool_name;
mod transport;
#[cfg(feature = "web")]
pub mod web;

pub use app::{Host, HostError, HostStatus, ReloadError};

pub use config::{ConfigError, HostConfig, LoadedConfig};
pub use features::FEATURES;
pub use provider::{ProviderError, ToolProvider, ToolSetVersion};
pub use registry::ToolRegistry;
