//! The maitool wire protocol and unified tool model.
//!
//! This crate is shared by the host, the runner and every plugin. It has three layers:
//!
//! * [`model`]: the unified tool model (`ToolSpec`, `ToolInvocation`, `ToolExecutionResult`, ...).
//!   Pure data: serde types that serialize both to MessagePack (named fields) and to JSON.
//! * [`llm`]: the model-facing view of tools. Renders tool lists into the tool-definition JSON
//!   of the OpenAI, Anthropic and Gemini APIs and parses their raw tool calls back into
//!   [`ToolInvocation`]s. Pure data as well.
//! * [`wire`] and [`rpc`]: the frame codec, the envelope, the typed method payloads, and a
//!   symmetric multiplexed RPC peer over any `AsyncRead + AsyncWrite`. `rpc` is the only module
//!   that performs I/O.
//!
//! * [`launch`]: the environment variables a host passes to the runners it starts.
//!
//! The wire format is specified byte by byte in `docs/PROTOCOL.md`.
#![warn(missing_docs)]

pub mod launch;
pub mod llm;
pub mod model;
pub mod rpc;
pub mod wire;

pub use model::*;
