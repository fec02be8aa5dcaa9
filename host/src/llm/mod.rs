//! The model-facing view of tools: definitions in the shapes that model APIs expect, and
//! parsers for the raw tool calls those APIs return.
//!
//! [`render_tools`] turns [`ToolDefinition`](maitool_protocol::ToolDefinition)s into the
//! `tools` value of an OpenAI Chat Completions, OpenAI Responses, Anthropic Messages or Gemini
//! request; [`parse_tool_calls`] turns the tool calls in that API's answer back into
//! [`ToolInvocation`](maitool_protocol::ToolInvocation)s. Both are pure functions over JSON: no
//! I/O, and the parsers never panic, whatever JSON they are given.

mod anthropic;
mod api;
mod decode;
mod gemini;
mod gemini_schema;
mod openai;
mod parse_error;
mod schema;

#[cfg(test)]
mod tests;

pub use api::{ModelApi, UnknownModelApi, parse_tool_calls, render_tools};
pub use parse_error::ToolCallParseError;
