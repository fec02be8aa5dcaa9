//! The maitool wire protocol and unified tool model.
//!
//! This crate is the contract shared by the host, the runner and every plugin:
//!
//! * [`model`]: the unified tool model (`ToolSpec`, `ToolInvocation`, `ToolExecutionResult`, ...).
//!   Pure data: serde types that serialize both to MessagePack (named fields) and to JSON.
//! * [`wire`] and [`rpc`]: the frame codec, the envelope, the typed method payloads, and a
//!   symmetric multiplexed RPC peer over any `AsyncRead + AsyncWrite`. `rpc` is the only module
//!   that performs I/O.
//! * [`launch`]: the environment variables a host passes to the runners it starts.
//! * [`api`]: plugin APIs, keyed as MaiBot keys them.
//! * [`capability`]: the names of the host capabilities plugins call (`cap.call`).
//! * `command_match` (feature `command-match`): how a chat message picks a command.
//! * [`hook`]: MaiBot's named hooks and the vocabulary of hook handlers.
//! * [`pool_token`]: how a pool member proves it holds its pool's token, for one connection.
//!
//! The wire format is specified byte by byte in `docs/PROTOCOL.md`.
#![warn(missing_docs)]

pub mod api;
pub mod capability;
#[cfg(feature = "command-match")]
pub mod command_match;
pub mod hook;
pub mod launch;
pub mod model;
pub mod pool_token;
pub mod rpc;
pub mod wire;

pub use model::*;
