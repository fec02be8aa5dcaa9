//! The SDK's attribute macros (from `maitool-sdk-macros`), documented here with examples
//! that compile against the SDK.

/// Derives `Deserialize` and `JsonSchema` for a tool's argument type, through the SDK's own
/// `serde` and `schemars`: a crate that depends on `maitool-sdk` alone needs no other
/// dependency and no `#[serde(crate = ...)]` / `#[schemars(crate = ...)]` lines.
///
/// Doc comments become the schema's descriptions; `#[serde(...)]` and `#[schemars(...)]`
/// attributes work as with the derives.
///
/// ```
/// use maitool_sdk::prelude::*;
///
/// /// Arguments of `roll_dice`.
/// #[maitool_sdk::args]
/// #[serde(deny_unknown_fields)]
/// struct RollArgs {
///     /// Sides of each die.
///     sides: u32,
///     /// How many dice (default 1).
///     #[serde(default)]
///     count: Option<u32>,
/// }
///
/// let tool = Tool::new("roll_dice", "Roll dice.", |args: RollArgs, _ctx: ToolContext| async move {
///     Ok(ToolOutput::text(format!("d{} x{}", args.sides, args.count.unwrap_or(1))))
/// });
/// # let _ = tool;
/// ```
#[doc(inline)]
pub use maitool_sdk_macros::args;

/// Derives `Serialize` and `JsonSchema` for a tool's structured output, through the SDK's
/// `serde` and `schemars` (see [`args`]).
///
/// ```
/// use maitool_sdk::prelude::*;
///
/// /// What `roll_dice` returns.
/// #[maitool_sdk::output]
/// struct Rolled {
///     /// Each die's face.
///     faces: Vec<u32>,
///     /// Their sum.
///     total: u32,
/// }
///
/// #[maitool_sdk::args]
/// struct RollArgs { sides: u32 }
///
/// let tool = Tool::new("roll_dice", "Roll a die.", |args: RollArgs, _ctx: ToolContext| async move {
///     Ok(ToolOutput::structured(Rolled { faces: vec![args.sides], total: args.sides }))
/// })
/// .output::<Rolled>();
/// # let _ = tool;
/// ```
#[doc(inline)]
pub use maitool_sdk_macros::output;

/// Derives `Serialize`, `Deserialize` and `JsonSchema` for a plugin's configuration type,
/// through the SDK's `serde` and `schemars` (see [`args`]). The type still implements
/// [`PluginConfig`](crate::PluginConfig) and `Default` itself.
///
/// ```
/// use maitool_sdk::prelude::*;
///
/// /// Configuration of the dice plugin.
/// #[maitool_sdk::config]
/// #[serde(default, deny_unknown_fields)]
/// #[derive(Default)]
/// struct DiceConfig {
///     /// The most dice one roll may throw.
///     max_dice: u32,
/// }
///
/// impl PluginConfig for DiceConfig {}
///
/// let plugin = Plugin::new("examples.dice", "1.0.0").config::<DiceConfig>();
/// # let _ = plugin;
/// ```
#[doc(inline)]
pub use maitool_sdk_macros::config;

/// Declares a tool from an `async fn`, and adds `fn <name>_tool() -> Tool` that builds it
/// with [`Tool::new`](crate::Tool::new) and the builder; the function itself stays as
/// written, callable as usual.
///
/// - **Name**: the function's name, or `name = "..."`.
/// - **Description**: the doc comment, or `description = "..."` (one of them is required).
/// - **Arguments**: each parameter is one argument of the model's call, named after the
///   parameter, its schema generated from its type; attributes on a parameter go to that
///   argument (a `///` doc comment for its description, `#[serde(default)]`,
///   `#[schemars(...)]`).
///   `Option<T>` parameters are optional. Or one parameter marked `#[args]` receives the whole
///   arguments, of a type declared with [`args`].
/// - **Context**: a parameter of type [`ToolContext`](crate::ToolContext) or `&ToolContext`,
///   anywhere in the list, receives the call's context; it is not an argument.
/// - **Result**: `Result<O, E>` where `O: Into<ToolOutput>` (a `ToolOutput`, a `String`) and
///   `E: Into<ToolError>` (a `ToolError`, any `std::error::Error`).
/// - **Options** (each maps to the builder method of the same meaning): `title = "..."`,
///   `core` ([`core_tool`](crate::Tool::core_tool)), `deferred`, `hidden`
///   ([`visibility`](crate::Tool::visibility)), `timeout_ms = 5000`, `enabled = false`,
///   `chat_scope = "group"` (`"all"`, `"group"`, `"private"`), `output = Type`.
///
/// ```
/// use maitool_sdk::prelude::*;
///
/// /// Roll dice and report the total.
/// #[maitool_sdk::tool(name = "roll_dice", core, timeout_ms = 5000)]
/// async fn roll(
///     /// Sides of each die.
///     sides: u32,
///     /// How many dice (default 1).
///     count: Option<u32>,
///     ctx: &ToolContext,
/// ) -> Result<ToolOutput, ToolError> {
///     let count = count.unwrap_or(1);
///     if sides < 2 {
///         return Err(ToolError::new("a die has at least 2 sides"));
///     }
///     maitool_sdk::log::info!(plugin = ctx.plugin_id(), "rolling {count}d{sides}");
///     Ok(ToolOutput::text(format!("rolled {count}d{sides}")))
/// }
///
/// #[maitool_sdk::args]
/// struct EchoArgs {
///     /// Text to send back.
///     text: String,
/// }
///
/// /// Send the text back.
/// #[maitool_sdk::tool]
/// async fn echo(#[args] args: EchoArgs) -> Result<String, ToolError> {
///     Ok(args.text)
/// }
///
/// let plugin = Plugin::new("examples.dice", "1.0.0")
///     .tool(roll_tool())
///     .tool(echo_tool());
/// # let _ = plugin;
/// ```
#[doc(inline)]
pub use maitool_sdk_macros::tool;

/// Collects the `#[tool]` methods of an `impl` block, whose calls share the value through
/// `&self` (state, clients, caches): adds `fn tools(self: &Arc<Self>) -> Vec<Tool>` and
/// `fn into_tools(self) -> Vec<Tool>` to the type. Each method takes `&self` and is declared
/// as with [`tool`] (same parameters, doc comment and options). Add them to a plugin with
/// [`Plugin::tools`](crate::Plugin::tools).
///
/// Calls run concurrently, so mutable state goes behind a lock or an atomic.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
///
/// use maitool_sdk::prelude::*;
///
/// #[derive(Default)]
/// struct Counter {
///     total: AtomicU64,
/// }
///
/// #[maitool_sdk::tools]
/// impl Counter {
///     /// Add to the counter and return the new total.
///     #[tool(core)]
///     async fn add(
///         &self,
///         /// How much to add.
///         amount: u64,
///     ) -> Result<String, ToolError> {
///         let total = self.total.fetch_add(amount, Ordering::Relaxed) + amount;
///         Ok(total.to_string())
///     }
///
///     /// The counter's total.
///     #[tool(name = "counter_total")]
///     async fn total(&self, ctx: ToolContext) -> Result<ToolOutput, ToolError> {
///         let _ = ctx.stream_id();
///         Ok(ToolOutput::structured(self.total.load(Ordering::Relaxed)))
///     }
///
///     // Not a tool: methods without #[tool] are left alone.
///     fn reset(&self) {
///         self.total.store(0, Ordering::Relaxed);
///     }
/// }
///
/// let plugin = Plugin::new("examples.counter", "1.0.0").tools(Counter::default().into_tools());
/// # let _ = plugin;
/// ```
#[doc(inline)]
pub use maitool_sdk_macros::tools;

#[cfg(test)]
mod tests;
