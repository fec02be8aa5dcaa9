//! Attribute macros of the maitool plugin SDK. Use them through `maitool-sdk`, which
//! re-exports them (`#[maitool_sdk::tool]`, `#[maitool_sdk::tools]`, `#[maitool_sdk::args]`,
//! `#[maitool_sdk::output]`, `#[maitool_sdk::config]`) and documents them with examples: the
//! code they generate names `::maitool_sdk`, so this crate alone is of no use.

mod derives;
mod options;
mod signature;
mod tool_fn;
mod tools_impl;

use proc_macro::TokenStream;

/// Derives `Deserialize` and `JsonSchema` through the SDK's re-exports (arguments of a tool).
#[proc_macro_attribute]
pub fn args(attr: TokenStream, item: TokenStream) -> TokenStream {
    derives::expand(derives::Kind::Args, attr.into(), item.into()).into()
}

/// Derives `Serialize` and `JsonSchema` through the SDK's re-exports (a tool's output).
#[proc_macro_attribute]
pub fn output(attr: TokenStream, item: TokenStream) -> TokenStream {
    derives::expand(derives::Kind::Output, attr.into(), item.into()).into()
}

/// Derives `Serialize`, `Deserialize` and `JsonSchema` through the SDK's re-exports (a
/// plugin's configuration).
#[proc_macro_attribute]
pub fn config(attr: TokenStream, item: TokenStream) -> TokenStream {
    derives::expand(derives::Kind::Config, attr.into(), item.into()).into()
}

/// Declares a tool from an `async fn`: adds `fn <name>_tool() -> maitool_sdk::Tool`.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    tool_fn::expand(attr.into(), item.into()).into()
}

/// Collects the `#[tool]` methods of an `impl` block: adds `tools(self: &Arc<Self>)` and
/// `into_tools(self)`, both returning `Vec<maitool_sdk::Tool>`.
#[proc_macro_attribute]
pub fn tools(attr: TokenStream, item: TokenStream) -> TokenStream {
    tools_impl::expand(attr.into(), item.into()).into()
}
