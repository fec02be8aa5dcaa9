//! One row of the built-in catalog: a tool's name, spec builder, handler, stage, visibility,
//! chat scope and config gate (MaiBot's `BuiltinToolEntry`).

use std::fmt;

use maitool_protocol::{ChatScope, ToolAvailabilityContext, ToolSpec, Visibility};

use super::config::BuiltinConfig;
use super::engine::EngineCapabilities;
use super::handler::Handler;
use super::stage::Stage;

/// The configuration switch a tool depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConfigGate {
    /// Always offered.
    Always,
    /// Withdrawn when rich replies are on (the reply carries attachments instead).
    WithoutRichReply,
    /// Offered in focus mode only, checked per session.
    FocusMode,
    /// Follows `enable_memory_query_tool`.
    MemoryQuery,
    /// Follows `enable_person_profile_query_tool`.
    PersonProfileQuery,
}

impl ConfigGate {
    /// Whether the config lets the tool exist at all, in any context.
    pub fn open_somewhere(self, config: &BuiltinConfig) -> bool {
        match self {
            ConfigGate::Always => true,
            ConfigGate::WithoutRichReply => !config.enable_rich_reply,
            ConfigGate::FocusMode => config.focus_mode,
            ConfigGate::MemoryQuery => config.enable_memory_query_tool,
            ConfigGate::PersonProfileQuery => config.enable_person_profile_query_tool,
        }
    }

    /// Whether the config lets the tool exist in this context.
    pub fn open_in(self, config: &BuiltinConfig, ctx: &ToolAvailabilityContext) -> bool {
        match self {
            ConfigGate::FocusMode => {
                config.focus_enabled(&ctx.session_id, &ctx.stream_id, ctx.is_group_chat)
            }
            other => other.open_somewhere(config),
        }
    }
}

/// What a spec builder may depend on.
#[derive(Debug, Clone, Copy)]
pub struct SpecContext<'a> {
    /// The configuration.
    pub config: &'a BuiltinConfig,
    /// What the engine can do.
    pub engine: EngineCapabilities,
}

/// Builds a tool's spec (name, English description, parameters schema).
pub type SpecBuilder = fn(SpecContext<'_>) -> ToolSpec;

/// One built-in tool.
#[derive(Clone, Copy)]
pub struct BuiltinEntry {
    /// Tool name.
    pub name: &'static str,
    /// Builds the spec; the provider adds provider, stage and visibility.
    pub spec: SpecBuilder,
    /// Runs the tool.
    pub handler: Handler,
    /// Where in the loop it is offered.
    pub stage: Stage,
    /// How it reaches the model.
    pub visibility: Visibility,
    /// Which chats it exists in.
    pub chat_scope: ChatScope,
    /// The configuration switch it depends on.
    pub gate: ConfigGate,
}

impl fmt::Debug for BuiltinEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BuiltinEntry")
            .field("name", &self.name)
            .field("stage", &self.stage)
            .field("visibility", &self.visibility)
            .field("chat_scope", &self.chat_scope)
            .field("gate", &self.gate)
            .finish()
    }
}

impl BuiltinEntry {
    /// Whether the tool exists in this context under this configuration.
    pub fn available(&self, config: &BuiltinConfig, ctx: &ToolAvailabilityContext) -> bool {
        self.chat_scope.admits(ctx.is_group_chat) && self.gate.open_in(config, ctx)
    }
}
