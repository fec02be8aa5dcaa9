//! Operator views of a host that the CLI computes in-process and `maitool serve` answers on
//! its control socket: model definitions, plugins with their components, and metrics.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use crate::llm::{ModelApi, render_tools};
use maitool_protocol::ToolAvailabilityContext;
use serde::{Deserialize, Serialize};

use crate::app::Host;
use crate::builtin::{Discovery, DiscoveryError, Stage, build_exposure};
use crate::circuit::CircuitStatus;
use crate::metrics::prometheus::{self, Exposition};
use crate::plugin::PluginLoadState;
use crate::sandbox::SandboxStatus;

mod components;
mod hooks;

use components::component_views;
pub use components::{ComponentView, TriggerView};
pub use hooks::{HookHandlerView, HookView, hooks};

/// Which model API's request shape `maitool definitions` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DefinitionFormat {
    /// OpenAI Chat Completions: `[{"type": "function", "function": {...}}]`.
    Openai,
    /// OpenAI Responses: `[{"type": "function", "name", ...}]`.
    OpenaiResponses,
    /// Anthropic Messages: `[{"name", "description", "input_schema"}]`.
    Anthropic,
    /// Gemini: `[{"functionDeclarations": [...]}]`.
    Gemini,
    /// MaiBot's `ToolSpec.to_llm_definition()` list: `[{"name", "description", "parameters_schema"?}]`.
    Maibot,
}

impl DefinitionFormat {
    /// Every format, in the order of the help text.
    pub const ALL: [DefinitionFormat; 5] = [
        DefinitionFormat::Openai,
        DefinitionFormat::OpenaiResponses,
        DefinitionFormat::Anthropic,
        DefinitionFormat::Gemini,
        DefinitionFormat::Maibot,
    ];

    /// The command-line spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            DefinitionFormat::Openai => "openai",
            DefinitionFormat::OpenaiResponses => "openai-responses",
            DefinitionFormat::Anthropic => "anthropic",
            DefinitionFormat::Gemini => "gemini",
            DefinitionFormat::Maibot => "maibot",
        }
    }

    /// The model API it renders for; `None` for MaiBot's own list.
    pub fn model_api(self) -> Option<ModelApi> {
        match self {
            DefinitionFormat::Openai => Some(ModelApi::OpenAiChat),
            DefinitionFormat::OpenaiResponses => Some(ModelApi::OpenAiResponses),
            DefinitionFormat::Anthropic => Some(ModelApi::Anthropic),
            DefinitionFormat::Gemini => Some(ModelApi::Gemini),
            DefinitionFormat::Maibot => None,
        }
    }
}

impl fmt::Display for DefinitionFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A format name [`DefinitionFormat::from_str`] does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown definitions format `{0}`: expected openai, openai-responses, anthropic, gemini or maibot"
)]
pub struct UnknownFormat(pub String);

impl FromStr for DefinitionFormat {
    type Err = UnknownFormat;

    /// The command-line spellings, plus the model API aliases (`openai_chat`, `claude`, ...).
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        let normalized = name.trim().to_ascii_lowercase().replace('_', "-");
        if normalized == "maibot" {
            return Ok(DefinitionFormat::Maibot);
        }
        match ModelApi::from_str(&normalized) {
            Ok(ModelApi::OpenAiChat) => Ok(DefinitionFormat::Openai),
            Ok(ModelApi::OpenAiResponses) => Ok(DefinitionFormat::OpenaiResponses),
            Ok(ModelApi::Anthropic) => Ok(DefinitionFormat::Anthropic),
            Ok(ModelApi::Gemini) => Ok(DefinitionFormat::Gemini),
            Err(_) => Err(UnknownFormat(name.to_owned())),
        }
    }
}

/// A deferred tool named in the reminder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeferredEntry {
    /// Tool name.
    pub name: String,
    /// Its description, as the model would read it.
    pub description: String,
}

/// The `<system-reminder>` an engine adds as a user message for the deferred tools.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeferredReminder {
    /// The reminder text, exactly as injected.
    pub text: String,
    /// The tools it lists.
    pub tools: Vec<DeferredEntry>,
}

/// What an engine sends a model for one context: `maitool definitions --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Definitions {
    /// The format rendered.
    pub format: DefinitionFormat,
    /// The request's `tools` value: visible tools and discovered deferred ones.
    pub tools: serde_json::Value,
    /// The reminder for the deferred tools not discovered yet; `None` when there are none.
    pub deferred_reminder: Option<DeferredReminder>,
}

/// Builds the tool set of `stage` for `context` the way an engine does (the built-in
/// exposure rules, with the session's discoveries when the built-in tools run) and renders it.
/// Fails when the session's discoveries cannot be read (a shared store that is unreachable).
pub async fn definitions(
    host: &Host,
    context: &ToolAvailabilityContext,
    format: DefinitionFormat,
    stage: Stage,
) -> Result<Definitions, DiscoveryError> {
    let discovery = host
        .builtin()
        .map(|builtin| Arc::clone(builtin.discovery()))
        .unwrap_or_else(|| Arc::new(Discovery::new()));
    let exposure = build_exposure(&host.registry, &discovery, context, stage).await?;
    let tools = match format.model_api() {
        Some(api) => render_tools(api, &exposure.definitions()),
        None => serde_json::to_value(exposure.definitions()).unwrap_or_default(),
    };
    let deferred_reminder = exposure.reminder().map(|text| DeferredReminder {
        text,
        tools: exposure
            .undiscovered
            .iter()
            .map(|spec| DeferredEntry {
                name: spec.name.clone(),
                description: spec.llm_description().to_owned(),
            })
            .collect(),
    });
    Ok(Definitions {
        format,
        tools,
        deferred_reminder,
    })
}

/// One plugin, for `maitool plugins`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PluginView {
    /// Plugin id.
    pub id: String,
    /// Version, once registered.
    pub version: String,
    /// The runner hosting it.
    pub runner: String,
    /// Load state.
    pub state: PluginLoadState,
    /// Why it failed, if it did.
    pub reason: Option<String>,
    /// Its components in declaration order.
    pub components: Vec<ComponentView>,
    /// The capabilities it declares it needs: a MaiBot plugin's manifest (also when it
    /// failed to load), or what the plugin said when it started.
    #[serde(default)]
    pub declared_capabilities: Vec<String>,
    /// Everything it may call: the operator's grants, then, with `grant_declared`, the
    /// declared names this host serves.
    #[serde(default)]
    pub granted_capabilities: Vec<String>,
    /// Whether it is granted what its manifest declares (`grant_declared`).
    #[serde(default)]
    pub grant_declared: bool,
    /// Declared names no capability of this host answers: never granted.
    #[serde(default)]
    pub unserved_capabilities: Vec<String>,
    /// Its circuit breaker, once a call timed out or crashed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub circuit: Option<CircuitStatus>,
    /// The sandbox its runner runs in (that of the runner's latest launch).
    #[serde(default)]
    pub sandbox: Option<SandboxStatus>,
}

/// Every plugin of every runner, in configuration order.
pub fn plugins(host: &Host) -> Vec<PluginView> {
    host.plugins
        .status()
        .into_iter()
        .flat_map(|runner| {
            let runner_name = runner.name;
            let sandbox = runner.sandbox;
            runner
                .plugins
                .into_iter()
                .map(move |plugin| (runner_name.clone(), sandbox.clone(), plugin))
        })
        .map(|(runner, sandbox, plugin)| PluginView {
            components: component_views(host, &plugin.id),
            id: plugin.id,
            version: plugin.version,
            runner,
            state: plugin.state,
            reason: plugin.reason,
            declared_capabilities: plugin.declared_capabilities,
            granted_capabilities: plugin.granted_capabilities,
            grant_declared: plugin.grant_declared,
            unserved_capabilities: plugin.unserved_capabilities,
            circuit: plugin.circuit,
            sandbox,
        })
        .collect()
}

/// The Prometheus text exposition of the host's tool, runner and MCP server metrics.
pub fn prometheus_text(host: &Host) -> String {
    let metrics = host.registry.metrics();
    let (tools, totals) = (metrics.snapshot(), metrics.totals());
    let runners = host.plugins.status();
    let mcp_servers = host.mcp().map(|mcp| mcp.status()).unwrap_or_default();
    prometheus::render(&Exposition {
        tools: &tools,
        totals: &totals,
        runners: &runners,
        mcp_servers: &mcp_servers,
    })
}

#[cfg(test)]
mod tests;
