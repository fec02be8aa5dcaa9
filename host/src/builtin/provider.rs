//! [`BuiltinToolProvider`]: the built-in catalog as a [`ToolProvider`].

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use maitool_protocol::{
    ProviderType, ToolAvailabilityContext, ToolExecutionContext, ToolExecutionResult,
    ToolInvocation, ToolSpec,
};

use crate::provider::{ProviderError, ToolProvider};

use super::PROVIDER_NAME;
use super::catalog::entries;
use super::config::BuiltinConfig;
use super::discovery::Discovery;
use super::engine::{EngineBridge, EngineCapabilities};
use super::entry::{BuiltinEntry, ConfigGate, SpecContext};
use super::handlers::HandlerContext;
use super::stage::Stage;

/// The full spec of an entry: its builder's spec with the configured description, the
/// provider, and `builtin_stage` and `visibility` metadata.
fn build_spec(entry: &BuiltinEntry, spec_ctx: SpecContext<'_>) -> ToolSpec {
    let mut spec = (entry.spec)(spec_ctx)
        .with_provider(PROVIDER_NAME, ProviderType::Builtin)
        .with_metadata("builtin_stage", entry.stage.as_str())
        .with_metadata("visibility", entry.visibility.as_str());
    if let Some(description) = spec_ctx.config.descriptions.get(entry.name) {
        spec.description = description.trim().to_owned();
    }
    spec
}

/// The specs of the built-ins available in `ctx` and offered in `stage`.
pub(crate) fn builtin_specs(
    config: &BuiltinConfig,
    engine: EngineCapabilities,
    ctx: &ToolAvailabilityContext,
    stage: Stage,
) -> Vec<ToolSpec> {
    let spec_ctx = SpecContext { config, engine };
    entries()
        .iter()
        .filter(|entry| entry.stage.offered_in(stage) && entry.available(config, ctx))
        .map(|entry| build_spec(entry, spec_ctx))
        .collect()
}

/// The built-in engine tools (MaiBot's `BuiltinToolProvider`).
///
/// Lists the catalog entries that pass the configuration gates and the caller's chat scope,
/// marks each spec with its stage and visibility, and runs invocations through the entry's
/// handler. Specs are built once, at construction: they depend only on the configuration and
/// the engine's capabilities.
pub struct BuiltinToolProvider {
    handler_ctx: HandlerContext,
    entries: Vec<(&'static BuiltinEntry, Arc<ToolSpec>)>,
    index: HashMap<&'static str, usize>,
}

impl std::fmt::Debug for BuiltinToolProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BuiltinToolProvider")
            .field(
                "tools",
                &self.entries.iter().map(|(e, _)| e.name).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl BuiltinToolProvider {
    /// A provider over `engine`, sharing `discovery` with the engine's exposure builder. Call
    /// [`BuiltinConfig::validate`] first; [`default_provider`](super::default_provider) does.
    pub fn new(
        config: BuiltinConfig,
        engine: Arc<dyn EngineBridge>,
        discovery: Arc<Discovery>,
    ) -> Arc<Self> {
        let spec_ctx = SpecContext {
            config: &config,
            engine: engine.capabilities(),
        };
        let entries: Vec<(&'static BuiltinEntry, Arc<ToolSpec>)> =
            super::catalog::BUILTIN_TOOL_ENTRIES
                .iter()
                .map(|entry| (entry, Arc::new(build_spec(entry, spec_ctx))))
                .collect();
        let index = entries
            .iter()
            .enumerate()
            .map(|(position, (entry, _))| (entry.name, position))
            .collect();
        Arc::new(Self {
            handler_ctx: HandlerContext {
                config: Arc::new(config),
                engine,
                discovery,
                own_specs: builtin_specs,
            },
            entries,
            index,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &BuiltinConfig {
        &self.handler_ctx.config
    }

    /// The engine the handlers talk to.
    pub fn engine(&self) -> &Arc<dyn EngineBridge> {
        &self.handler_ctx.engine
    }

    /// The discovery state shared with the exposure builder.
    pub fn discovery(&self) -> &Arc<Discovery> {
        &self.handler_ctx.discovery
    }

    fn available_entry(
        &self,
        name: &str,
        ctx: &ToolAvailabilityContext,
    ) -> Option<&(&'static BuiltinEntry, Arc<ToolSpec>)> {
        let found = &self.entries[*self.index.get(name)?];
        found.0.available(self.config(), ctx).then_some(found)
    }

    /// The tools offered in `stage` (`Both`: all stages) in this context.
    pub fn list_tools_for_stage(
        &self,
        ctx: &ToolAvailabilityContext,
        stage: Stage,
    ) -> Vec<Arc<ToolSpec>> {
        self.entries
            .iter()
            .filter(|(entry, _)| {
                entry.stage.offered_in(stage) && entry.available(self.config(), ctx)
            })
            .map(|(_, spec)| Arc::clone(spec))
            .collect()
    }

    /// Why `entry` is not available in `ctx`.
    fn unavailable_reason(&self, entry: &BuiltinEntry, ctx: &ToolAvailabilityContext) -> String {
        if !entry.chat_scope.admits(ctx.is_group_chat) {
            let chats = entry.chat_scope;
            return format!(
                "built-in tool {} is only available in {chats} chats",
                entry.name
            );
        }
        let gate = match entry.gate {
            ConfigGate::Always => "it is disabled",
            ConfigGate::WithoutRichReply => "rich replies are enabled (use reply's attachments)",
            ConfigGate::FocusMode => "focus mode is not enabled for this chat",
            ConfigGate::MemoryQuery => "enable_memory_query_tool is off",
            ConfigGate::PersonProfileQuery => "enable_person_profile_query_tool is off",
        };
        format!("built-in tool {} is not available: {gate}", entry.name)
    }
}

#[async_trait]
impl ToolProvider for BuiltinToolProvider {
    fn provider_name(&self) -> &str {
        PROVIDER_NAME
    }

    fn provider_type(&self) -> ProviderType {
        ProviderType::Builtin
    }

    async fn list_tools(
        &self,
        ctx: &ToolAvailabilityContext,
    ) -> Result<Vec<Arc<ToolSpec>>, ProviderError> {
        Ok(self.list_tools_for_stage(ctx, Stage::Both))
    }

    async fn invoke(
        &self,
        invocation: ToolInvocation,
        ctx: &ToolExecutionContext,
    ) -> Result<ToolExecutionResult, ProviderError> {
        let Some(&position) = self.index.get(invocation.tool_name.as_str()) else {
            return Err(ProviderError::ToolNotFound(invocation.tool_name));
        };
        let entry = self.entries[position].0;
        let availability = ctx.availability();
        if !entry.available(self.config(), &availability) {
            let reason = self.unavailable_reason(entry, &availability);
            return Ok(ToolExecutionResult::failure(&invocation.tool_name, reason));
        }
        tracing::debug!(tool = %entry.name, call = %invocation.call_id, "running built-in tool");
        let outcome = (entry.handler)(&self.handler_ctx, &invocation, ctx).await;
        Ok(match outcome {
            Ok(mut result) => {
                result.tool_name = invocation.tool_name.clone();
                result
            }
            Err(failure) => {
                tracing::debug!(tool = %entry.name, error = %failure.message, "built-in tool failed");
                failure.into_result(&invocation.tool_name)
            }
        })
    }

    async fn declared_tool_names(&self) -> Result<Vec<String>, ProviderError> {
        Ok(self
            .entries
            .iter()
            .filter(|(entry, _)| entry.gate.open_somewhere(self.config()))
            .map(|(entry, _)| entry.name.to_owned())
            .collect())
    }

    async fn available_tool(
        &self,
        name: &str,
        ctx: &ToolAvailabilityContext,
    ) -> Result<Option<Arc<ToolSpec>>, ProviderError> {
        Ok(self
            .available_entry(name, ctx)
            .map(|(_, spec)| Arc::clone(spec)))
    }
}
