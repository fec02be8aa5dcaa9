//! The plugin side of maitool: the runner that connects to the host, loads plugins and serves
//! their calls.
//!
//! A runner is a process the host spawns. It connects back to the host's Unix socket, says
//! `runner.hello` with the one-time token it read from the pipe the host handed it, loads the plugins it
//! was built with, registers their components, reports `runner.ready`, and then serves
//! invocations concurrently until the host asks it to shut down, the connection closes, or the
//! host process dies.
//!
//! Plugin authors do not use this crate directly: `maitool-sdk` builds [`PluginSpec`]s from
//! typed declarations and calls [`run`]. The types here are the runner-level contract between
//! the two.

mod accepted_links;
mod availability;
mod blocking;
mod context;
mod data_dir;
mod error;
mod launch;
mod load_error;
mod log_forward;
mod pool;
mod serve;
mod spec;

pub use blocking::run_blocking;
pub use context::{HostClient, InvocationContext};
pub use error::RunnerError;
pub use launch::{ENV_IPC_ADDRESS, ENV_RUNNER_NAME, ENV_SESSION_TOKEN_FD, LaunchEnv};
pub use serve::{RunnerOptions, run, serve, serve_stream};
pub use spec::{
    ApiComponent, ApiSpec, CommandHandler, ComponentHandler, ComponentSpec, EventHandler, Handler,
    HookComponent, HookHandlerSpec, PluginHooks, PluginSpec,
};

/// The version of the runner, reported as `sdk_version` in `runner.hello`.
pub const RUNNER_VERSION: &str = env!("CARGO_PKG_VERSION");
