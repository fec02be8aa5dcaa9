//! The maitool plugin SDK.
//!
//! A plugin is Rust code built into a *runner* executable that the maitool host spawns. An
//! author depends on this crate alone, declares tools with typed arguments, and calls
//! [`run`] from `main`:
//!
//! ```no_run
//! use maitool_sdk::prelude::*;
//!
//! /// Arguments of `roll_dice`; the JSON Schema the model sees is generated from this type.
//! #[derive(Deserialize, JsonSchema)]
//! struct RollArgs {
//!     /// Number of sides of each die.
//!     sides: u32,
//! }
//!
//! fn main() {
//!     let dice = Plugin::new("examples.dice", "1.0.0").tool(
//!         Tool::new("roll_dice", "Roll a die", |args: RollArgs, _ctx: ToolContext| async move {
//!             Ok(ToolOutput::text(format!("rolled a d{}", args.sides)))
//!         }),
//!     );
//!     maitool_sdk::run([dice]);
//! }
//! ```
//!
//! One executable may host several plugins: pass them all to [`run`]. Legacy MaiBot Actions
//! are declared with [`Action`] and converted to tools automatically.
#![warn(missing_docs)]

mod action;
mod arguments;
mod blocking;
mod config;
mod context;
mod output;
mod plugin;
mod post_history;
mod schema;
mod tool;

pub use action::{Action, ActionInput, ActivationType, ChatMode};
pub use config::{ConfigUpdate, PluginConfig};
pub use context::{LoadContext, ToolContext};
pub use output::{ToolError, ToolOutput};
pub use plugin::{Plugin, PluginError};
pub use tool::{ChatScope, Tool, Visibility};

pub use maitool_protocol::rpc::RpcError as HostError;
pub use maitool_protocol::{
    BinaryData, ContentType, JsonObject, ToolAnnotation, ToolContentItem, ToolExecutionContext,
    ToolIcon,
};
pub use maitool_runner::{HostClient, RunnerOptions, run_blocking};
/// Timers for handlers (handlers run on tokio): `sleep`, `timeout`, `interval`.
pub use tokio::time;

/// The wire types and codec, for tests and tools that speak the protocol directly.
pub use maitool_protocol as protocol;

pub use schemars;
pub use schemars::JsonSchema;
pub use serde;
pub use serde::{Deserialize, Serialize};
pub use serde_json;
pub use serde_json::{Value, json};
/// Logging for plugins (`tracing`): records are forwarded to the host's log and tagged with
/// the plugin id, e.g. `maitool_sdk::log::info!("cache warmed")`.
pub use tracing as log;

/// Everything a plugin usually needs, in one import.
pub mod prelude {
    pub use crate::{
        Action, ActionInput, ActivationType, ChatMode, ChatScope, ConfigUpdate, Deserialize,
        HostClient, JsonSchema, LoadContext, Plugin, PluginConfig, PluginError, Serialize, Tool,
        ToolContentItem, ToolContext, ToolError, ToolOutput, Visibility, json,
    };
}

/// Runs the runner with these plugins until the host stops it, then exits the process.
///
/// Call it first thing in `main`, before starting threads or an async runtime: it reads and
/// removes the launch variables from the environment and builds its own runtime.
pub fn run(plugins: impl IntoIterator<Item = Plugin>) -> ! {
    run_with(plugins, RunnerOptions::default())
}

/// [`run`] with options (for example more worker threads for CPU-heavy handlers).
pub fn run_with(plugins: impl IntoIterator<Item = Plugin>, options: RunnerOptions) -> ! {
    let specs = plugins.into_iter().map(Plugin::into_spec).collect();
    maitool_runner::run(specs, options)
}
