//! Which tools the model sees in a stage: MaiBot's visible/deferred split, generalised.
//!
//! * Built-ins (provider `maisaka_builtin`) of the stage: `visible` ones are exposed,
//!   `deferred` ones join the deferred pool, `hidden` ones are left out.
//! * Every other tool (plugin, MCP, ...) is exposed only with `metadata.visibility ==
//!   "visible"`; `hidden` is left out; anything else is deferred. Non-built-ins belong to the
//!   action stage.
//! * Deferred tools discovered through `tool_search` (and still backed by a search in the
//!   context) are exposed too; the rest are listed in a `<system-reminder>`.

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::llm::{ModelApi, render_tools};
use maitool_protocol::ToolDefinition;
use maitool_protocol::{ToolAvailabilityContext, ToolSpec};

use crate::registry::ToolRegistry;

use super::classify::{Classified, classify};
use super::discovery::{DeferredTool, Discovery, DiscoveryError};
use super::stage::Stage;

/// Longest description shown per tool in the reminder.
const REMINDER_DESCRIPTION_CHARS: usize = 200;

/// The built-in tool that discovers deferred tools.
const TOOL_SEARCH: &str = "tool_search";

/// The reminder's first lines when the model has `tool_search`.
const SEARCHABLE_HEADER: &str = "<system-reminder>\nThe following tools are not exposed to you \
     directly, but you can discover them with the tool_search tool (search by name, prefix or \
     keyword); the tools it finds become available from your next turn:\n";

/// The reminder's first lines when it does not: nothing can expose these tools during the
/// conversation, so the reminder only says they exist.
const UNSEARCHABLE_HEADER: &str = "<system-reminder>\nThe following tools exist but are not \
     exposed to you in this conversation:\n";

/// The tool set of one model request.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolExposure {
    /// The tools given to the model, in registry order: visible ones and discovered deferred
    /// ones.
    pub exposed: Vec<Arc<ToolSpec>>,
    /// Deferred tools not discovered yet, for the reminder.
    pub undiscovered: Vec<Arc<ToolSpec>>,
    /// Names of the exposed deferred tools.
    pub discovered: BTreeSet<String>,
}

impl ToolExposure {
    /// Builds the set from a classification and the discovered names.
    pub fn from_classified(classified: Classified, discovered: &BTreeSet<String>) -> Self {
        let mut exposure = ToolExposure {
            exposed: classified.visible,
            ..ToolExposure::default()
        };
        for spec in classified.deferred {
            if discovered.contains(&spec.name) {
                exposure.discovered.insert(spec.name.clone());
                exposure.exposed.push(spec);
            } else {
                exposure.undiscovered.push(spec);
            }
        }
        exposure
    }

    /// Whether the model was given `name`.
    pub fn is_exposed(&self, name: &str) -> bool {
        self.exposed.iter().any(|spec| spec.name == name)
    }

    /// The model-facing definitions of the exposed tools.
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        self.exposed
            .iter()
            .map(|spec| spec.to_llm_definition())
            .collect()
    }

    /// The exposed tools as the `tools` value of a request to `api`.
    pub fn render(&self, api: ModelApi) -> serde_json::Value {
        render_tools(api, &self.definitions())
    }

    /// The `<system-reminder>` listing the undiscovered deferred tools, or `None` when there
    /// are none. The engine injects it as a user message.
    pub fn reminder(&self) -> Option<String> {
        if self.undiscovered.is_empty() {
            return None;
        }
        // Point at tool_search only when the model has it (the built-in tools may be off).
        let mut text = String::from(if self.is_exposed(TOOL_SEARCH) {
            SEARCHABLE_HEADER
        } else {
            UNSEARCHABLE_HEADER
        });
        for (position, spec) in self.undiscovered.iter().enumerate() {
            let description = one_line(spec.llm_description());
            text.push_str(&format!(
                "{}. {}: {}\n",
                position + 1,
                spec.name,
                description
            ));
        }
        text.push_str("</system-reminder>");
        Some(text)
    }
}

/// Whitespace collapsed, cut at a character boundary with an ellipsis.
fn one_line(text: &str) -> String {
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.chars().count() <= REMINDER_DESCRIPTION_CHARS {
        return collapsed;
    }
    let cut: String = collapsed
        .chars()
        .take(REMINDER_DESCRIPTION_CHARS - 1)
        .collect();
    format!("{}…", cut.trim_end())
}

/// Builds the tool set of `stage` for a session: lists the registry, refreshes the session's
/// deferred pool in `discovery`, and exposes what is visible or discovered. Fails when the
/// session's discoveries cannot be read (a shared store that is unreachable).
pub async fn build_exposure(
    registry: &ToolRegistry,
    discovery: &Discovery,
    ctx: &ToolAvailabilityContext,
    stage: Stage,
) -> Result<ToolExposure, DiscoveryError> {
    // Listed once: a session's listing runs the planner's request hook.
    let listed = registry.list_tools(ctx).await;
    let classified = classify(listed.clone(), stage);
    // The search pool is always the action-stage deferred set, whatever stage is built.
    let pool: Vec<DeferredTool> = if stage == Stage::Action {
        classified.deferred.iter().map(DeferredTool::from).collect()
    } else {
        classify(listed, Stage::Action)
            .deferred
            .iter()
            .map(DeferredTool::from)
            .collect()
    };
    let discovered = discovery.set_deferred_pool(&ctx.session_id, pool).await?;
    Ok(ToolExposure::from_classified(classified, &discovered))
}
