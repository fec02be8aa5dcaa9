//! Testing a plugin without the host: the real runner serves the plugin in this
//! process, over an in-memory stream, to a test host that speaks the real protocol.
//!
//! Enabled by the `testing` feature, as a dev-dependency:
//!
//! ```toml
//! [dev-dependencies]
//! maitool-sdk = { version = "0.1", features = ["testing"] }
//! tokio = { version = "1", features = ["macros", "rt"] }
//! ```
//!
//! [`PluginTest`] says what the host grants (capabilities), holds (the kv store, the
//! configuration, a data directory) and passes (the chat context of calls);
//! [`start`](PluginTest::start) loads the plugin as the host would (configuration,
//! registration, `on_load`), and [`RunningPlugin::call`] calls its tools with JSON
//! arguments; [`RunningPlugin::command`] hands its commands a chat message and
//! [`RunningPlugin::emit`] runs its event handlers. What the plugin did is there to check: [`RunningPlugin::sent`] (the `send.*`
//! messages, captured instead of delivered), [`RunningPlugin::kv`], and every capability
//! call with its answer ([`RunningPlugin::capability_calls`]).
//!
//! The test host answers as maitool's host does:
//! - arguments are checked against the tool's schema before the plugin is called, a
//!   violation being the host's failed result (strings are not converted to numbers or
//!   booleans, as the host does first: pass the declared JSON types);
//! - context keys a tool declares as parameters (`stream_id`, `chat_id`, `group_id`,
//!   `user_id`, `platform`) are filled from the call's context when missing;
//! - a capability not granted fails with `E_CAPABILITY_DENIED` and the host's message;
//!   `kv.*` and `send.*` take and answer the host's arguments and results; other
//!   capabilities are answered by [`PluginTest::serve`] handlers, or fail with
//!   `E_CAPABILITY_FAILED`.
//!
//! It does not check tool outputs against their output schema, and runs the plugin on the
//! test's runtime (a `#[tokio::test]` is a current-thread runtime, as a runner's is by
//! default).
//!
//! ```
//! use maitool_sdk::prelude::*;
//! use maitool_sdk::testing::PluginTest;
//!
//! /// Roll a die.
//! #[maitool_sdk::tool]
//! async fn roll_dice(
//!     /// Sides of the die.
//!     sides: u32,
//! ) -> Result<String, ToolError> {
//!     if sides < 2 {
//!         return Err(ToolError::new("a die has at least 2 sides"));
//!     }
//!     Ok(format!("rolled a d{sides}"))
//! }
//!
//! fn dice() -> Plugin {
//!     Plugin::new("examples.dice", "1.0.0").tool(roll_dice_tool())
//! }
//!
//! // In a test file: #[tokio::test]
//! async fn rolls() -> Result<(), Box<dyn std::error::Error>> {
//!     let t = PluginTest::new(dice()).start().await?;
//!     let result = t.call("roll_dice", json!({ "sides": 6 })).await?;
//!     assert!(result.success);
//!     assert_eq!(result.content, "rolled a d6");
//!     // The host refuses arguments that break the schema before the plugin sees them.
//!     let refused = t.call("roll_dice", json!({ "sides": "six" })).await?;
//!     assert!(refused.error_message.starts_with("invalid arguments for tool roll_dice"));
//!     // A failure of the handler is a failed result.
//!     let failed = t.call("roll_dice", json!({ "sides": 1 })).await?;
//!     assert_eq!(failed.error_message, "a die has at least 2 sides");
//!     Ok(())
//! }
//! # fn main() {
//! #     let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
//! #     runtime.block_on(rolls()).unwrap();
//! # }
//! ```

mod arguments;
mod builder;
mod capabilities;
mod error;
mod host;
mod messages;
mod running;

pub use builder::PluginTest;
pub use capabilities::{CapabilityCall, SentMessage};
pub use error::TestError;
pub use messages::{CommandResult, EventResult, HandlerResult};
pub use running::RunningPlugin;

pub use maitool_protocol::hook::HookResponse;
/// A capability's refusal as the host sends it (code and message): what a [`PluginTest::serve`]
/// handler returns for an error, and what [`CapabilityCall::outcome`] records.
pub use maitool_protocol::rpc::RpcError;
/// The host's error codes, for building an [`RpcError`].
pub use maitool_protocol::wire::ErrorCode;
pub use maitool_protocol::wire::methods::ComponentDeclaration;
pub use maitool_protocol::{ToolExecutionContext, ToolExecutionResult};

#[cfg(test)]
mod tests;
