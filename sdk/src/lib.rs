//! The maitool plugin SDK.
//!
//! A plugin is Rust code built into a *runner* executable that the maitool host spawns. An
//! author depends on this crate alone (its `serde`, `schemars` and `serde_json` are
//! re-exported), declares tools with typed arguments, and calls [`run`] from `main`:
//!
//! ```no_run
//! use maitool_sdk::prelude::*;
//!
//! /// Arguments of `roll_dice`; the JSON Schema the model sees is generated from this type.
//! #[maitool_sdk::args]
//! struct RollArgs {
//!     /// Number of sides of each die.
//!     sides: u32,
//! }
//!
//! fn main() {
//!     let dice = Plugin::new("examples.dice", "1.0.0").tool(
//!         Tool::new("roll_dice", "Roll a die", |args: RollArgs, _ctx: ToolContext| async move {
//!             Ok(ToolOutput::text(format!("rolled a d{}", args.sides)))
//!         })
//!         .core_tool(), // visible to the model (else deferred)
//!     );
//!     maitool_sdk::run([dice]);
//! }
//! ```
//!
//! `#[maitool_sdk::args]` derives `Deserialize` and `JsonSchema` through the SDK's re-exported
//! `serde` and `schemars`, so the plugin's `Cargo.toml` needs no other dependency.
//!
//! docs/PLUGINS.md in the maitool repository is the guide: from `cargo new` to a plugin with
//! tools, typed configuration, host capabilities, Actions, visibility and timeouts.
//!
//! One executable may host several plugins: pass them all to [`run`]. Legacy MaiBot Actions
//! are declared with [`Action`] and converted to tools automatically (new plugins should
//! prefer tools). A plugin also answers chat messages: [`Command`]s run when a message
//! matches their pattern, [`EventHandler`]s at the events of the message flow. It may run code
//! at MaiBot's named hooks ([`HookHandler`], for example to shape the tools a session is
//! offered) and offer APIs to other plugins ([`Api`], called with [`ApiClient`]).
#![warn(missing_docs)]

// The macros' expansions name `::maitool_sdk`, which must resolve inside this crate too (its
// tests and doctests use the macros).
extern crate self as maitool_sdk;

mod action;
pub mod api;
mod arguments;
mod blocking;
mod command;
mod config;
mod context;
mod event_handler;
mod gateway;
pub mod hook;
mod host;
mod kv;
mod output;
mod plugin;
mod post_history;
mod schema;
mod send;
mod tool;
mod tool_args;
mod tool_set;

#[doc(hidden)]
pub mod __private;
#[cfg(any(test, feature = "testing"))]
pub mod testing;

pub use action::{Action, ActionInput, ActivationType, ChatMode};
pub use api::{Api, ApiCallError, ApiClient};
pub use command::{Command, CommandInput, CommandOutput};
pub use config::{ConfigUpdate, PluginConfig};
pub use context::{PluginContext, ToolContext};
pub use event_handler::{Event, EventHandler, EventOutput};
pub use gateway::{InboundMessage, RoutedMessage};
pub use hook::{HookCall, HookHandler, HookReply};
pub use host::{HostClient, HostError};
pub use kv::Kv;
pub use output::{ToolError, ToolOutput};
pub use plugin::{Plugin, PluginError};
pub use send::{Sender, SentMessage};
pub use tool::Tool;
pub use tool_args::ToolArgs;

mod macros;
pub use macros::{args, config, output, tool, tools};

/// The events of MaiBot's event system an [`EventHandler`] takes.
pub use maitool_protocol::wire::message_flow::EventType;
/// Shared tool-model types of the maitool protocol that plugin code uses: visibility, chat
/// scope, content items, annotations and icons.
pub use maitool_protocol::{
    BinaryData, ChatScope, ContentType, JsonObject, ToolAnnotation, ToolContentItem, ToolIcon,
    Visibility,
};
pub use maitool_runner::{RunnerOptions, run_blocking};
/// Timers for handlers (handlers run on tokio): `sleep`, `timeout`, `interval`.
pub use tokio::time;

/// The schemars version (1.x) the SDK generates schemas with. An argument type must implement
/// *this* version's `JsonSchema`: [`args`], [`output`] and [`config`] derive it so.
pub use schemars;
pub use schemars::JsonSchema;
/// The serde version the SDK uses. [`args`], [`output`] and [`config`] derive through it; a
/// type that derives only serde points at it with `#[serde(crate = "maitool_sdk::serde")]`.
pub use serde;
pub use serde::{Deserialize, Serialize};
pub use serde_json;
pub use serde_json::{Value, json};
/// Logging for plugins (`tracing`): records are forwarded to the host's log and tagged with
/// the plugin id, e.g. `maitool_sdk::log::info!("cache warmed")`.
pub use tracing as log;

/// Everything a plugin usually needs, in one import: `use maitool_sdk::prelude::*;`.
pub mod prelude {
    pub use crate::{
        Action, ActionInput, ActivationType, Api, ApiCallError, ChatMode, ChatScope, Command,
        CommandInput, CommandOutput, ConfigUpdate, Deserialize, Event, EventHandler, EventOutput,
        EventType, HookCall, HookHandler, HookReply, HostClient, HostError, JsonSchema, Plugin,
        PluginConfig, PluginContext, PluginError, Serialize, Tool, ToolContentItem, ToolContext,
        ToolError, ToolOutput, Value, Visibility, json,
    };
}

/// Runs the runner with these plugins until the host stops it, then exits the process.
///
/// Call it from `main`, outside any async runtime (it builds its own). It reads the launch
/// variables without changing the environment, and the session token from the pipe the host
/// handed over, which it closes: plugin code never sees the token.
pub fn run(plugins: impl IntoIterator<Item = Plugin>) -> ! {
    run_with(plugins, RunnerOptions::default())
}

/// [`run`] with options (for example more worker threads for CPU-heavy handlers).
pub fn run_with(plugins: impl IntoIterator<Item = Plugin>, options: RunnerOptions) -> ! {
    let specs = plugins.into_iter().map(Plugin::into_spec).collect();
    maitool_runner::run(specs, options)
}

#[cfg(test)]
mod tests;
