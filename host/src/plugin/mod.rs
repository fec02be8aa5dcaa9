//! The plugin runtime: runner subprocesses supervised by the host, talking MessagePack RPC
//! over a Unix socket, with their components in a [`ComponentRegistry`] and their tools
//! exposed through [`PluginToolProvider`]; their hook handlers run by the [`HookDispatcher`],
//! their APIs kept in the [`ApiRegistry`] for other plugins' `api.call`.

mod api_call;
mod apis;
mod availability;
mod breaker;
mod call_error;
mod capabilities;
mod chat_view;
mod component_call;
mod components;
mod config;
mod config_update;
mod connection;
mod data_dir;
mod executable;
mod exit;
mod failure_hint;
mod grant;
mod hello;
mod hook_dispatch;
mod hooks;
mod inbound;
mod invoke_args;
mod kv;
mod listener;
mod live_peer;
mod maibot;
mod nesting;
mod parameter_list;
mod pool;
mod pool_members;
mod pool_status;
mod provider;
mod reconfigure;
mod restart_wait;
mod result;
mod runner_shared;
mod runtime;
mod runtime_error;
mod sandbox_needs;
mod shared;
mod status;
mod supervisor;
mod toggles;
mod token_pipe;

pub use apis::{ApiEntry, ApiRegistry};
pub(crate) use capabilities::message_dict;
pub use capabilities::{
    BotConfig, CapabilityService, ConfigEditor, LlmConfig, LlmConfigError, MemorySink, MessageSink,
    OutgoingImage, OutgoingMessage, SinkError, StoreSink,
};
pub(crate) use chat_view::ChatView;
pub use component_call::ComponentCallError;
pub use components::{
    CommandTrigger, ComponentEntry, ComponentLookupError, ComponentRegistry, DeclarationError,
    EventTrigger, ExposedTool, Trigger, event_source,
};
pub use config::{AnnouncedIdError, RunnerConfigError, RunnerProblem, RuntimeConfigError};
pub use config::{
    MaibotLaunch, PluginManifest, PluginSettings, ResolvedRunner, RunnerConfig, RunnerKind,
    RuntimeConfig, check_announced_plugin_id, find_program, resolve_program,
};
pub use data_dir::{DataDirError, PluginIdError, PluginIdProblem, check_plugin_id};
pub use grant::{
    GrantError, PRIVILEGED_FAMILIES, Suggestion, check_grant, declared_grants, grants_admit,
    suggest, unserved,
};
pub use hook_dispatch::HookDispatcher;
pub use hooks::{HookHandlerEntry, HookRegistry};
pub use inbound::InboundMessages;
pub use kv::{KvBackend, KvError, KvRecord, KvStore};
pub use parameter_list::ParameterListError;
pub use pool::{
    ExpiringToken, PoolConfig, PoolConfigError, PoolStartError, PoolTls, TokenEntry, check_pools,
};
pub use pool_status::{PoolMemberStatus, PoolStatus};
pub use provider::PluginToolProvider;
pub use runtime::{ApplyReport, PluginRuntime, PoolsReport, RuntimeOptions};
pub use runtime_error::{ReloadError, RestartError, RuntimeError};
pub use status::{
    EnvironmentState, EnvironmentStatus, NotLoaded, PluginLoadState, PluginStatus, PluginsSummary,
    RegisteredConfig, RunnerState, RunnerStatus,
};
pub use toggles::{
    DisabledComponent, LocalToggles, PostgresToggles, TOGGLE_CHANNEL, ToggleError, ToggleStore,
};

/// The provider name of plugin tools in the registry.
pub const PLUGIN_PROVIDER_NAME: &str = "plugin_runtime";
