//! A plugin's components as `maitool plugins` shows them: what each is, how it reaches a
//! model, and when it runs.

use maitool_protocol::Visibility;
use serde::{Deserialize, Serialize};

use crate::app::Host;
use crate::plugin::{Trigger, event_source};

/// One component of a plugin, for `maitool plugins`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ComponentView {
    /// `plugin_id.name`.
    pub full_name: String,
    /// `TOOL`, `ACTION`, or another MaiBot component type.
    pub component_type: String,
    /// How the component reaches the model.
    pub visibility: Visibility,
    /// Enabled globally: declared enabled and not disabled by an operator.
    pub enabled: bool,
    /// A converted legacy Action.
    pub legacy_action: bool,
    /// The platforms it is offered on; empty: every platform.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub platforms: Vec<String>,
    /// Its every successful result ends the planner round.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stop_after_execution: bool,
    /// When it runs, as a sentence (`when a chat message matches /^\/weather/ ...`).
    #[serde(default)]
    pub runs: String,
    /// What triggers a command or an event handler, field by field; `None` for tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<TriggerView>,
    /// How a hook handler or an API runs under maitool, in full (a hook handler's hook, mode,
    /// order, error policy and timeout, and who runs it, or why it never runs; an API's key
    /// and who may call it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// What makes a command or an event handler run, for `maitool plugins --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TriggerView {
    /// A command: a chat message that matches.
    Command {
        /// Its regular expression (Python syntax), searched in the message's text.
        pattern: String,
        /// Prefixes that call it too.
        aliases: Vec<String>,
        /// Whether the message stops after it unless it says otherwise.
        intercepts: bool,
        /// Why the pattern does not compile, if it does not (aliases still match).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pattern_error: Option<String>,
        /// Only operators may run it (`permission = "operator"`).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        operator_only: bool,
    },
    /// An event handler.
    Event {
        /// The event's name.
        event: String,
        /// Higher runs first.
        weight: i64,
        /// Waited for, and able to change or stop the message.
        intercept_message: bool,
        /// Who fires the event.
        fired_by: String,
    },
}

impl TriggerView {
    fn of(trigger: &Trigger) -> Option<TriggerView> {
        match trigger {
            Trigger::Command(command) => Some(TriggerView::Command {
                pattern: command.matcher.pattern().to_owned(),
                aliases: command.matcher.aliases().to_vec(),
                intercepts: command.intercepts,
                pattern_error: command.matcher.pattern_error().map(str::to_owned),
                operator_only: command.operator_only,
            }),
            Trigger::Event(event) => Some(TriggerView::Event {
                event: event.event_type.to_string(),
                weight: event.weight,
                intercept_message: event.intercept_message,
                fired_by: event_source(&event.event_type).to_owned(),
            }),
            Trigger::Call | Trigger::Gateway { .. } | Trigger::Never => None,
        }
    }
}

/// A plugin's components in declaration order, then its APIs.
pub(super) fn component_views(host: &Host, plugin_id: &str) -> Vec<ComponentView> {
    let components = host.plugins.components();
    let handlers = host.plugins.hook_handlers().plugin_handlers(plugin_id);
    let mut views: Vec<ComponentView> = components
        .plugin_components(plugin_id)
        .iter()
        .map(|entry| {
            // Hook handlers run through the hook registry, not the component registry's
            // trigger: their own entry says when.
            let handler = handlers
                .iter()
                .find(|handler| handler.full_name == entry.full_name);
            ComponentView {
                full_name: entry.full_name.clone(),
                component_type: entry.component_type.clone(),
                visibility: entry.visibility,
                enabled: components.is_enabled(&entry.full_name),
                legacy_action: entry.legacy_action,
                platforms: entry.platforms.names().to_vec(),
                stop_after_execution: entry.stop_after_execution,
                runs: handler.map_or_else(|| entry.trigger.describe(), |handler| handler.runs()),
                trigger: TriggerView::of(&entry.trigger),
                detail: handler.map(|handler| handler.describe()),
            }
        })
        .collect();
    views.extend(
        host.plugins
            .apis()
            .plugin_apis(plugin_id)
            .iter()
            .map(|api| ComponentView {
                full_name: api.registry_key.clone(),
                component_type: "API".to_owned(),
                visibility: Visibility::Hidden,
                enabled: api.enabled,
                legacy_action: false,
                platforms: Vec::new(),
                stop_after_execution: false,
                runs: "when a plugin calls it with api.call".to_owned(),
                trigger: None,
                detail: Some(api.describe()),
            }),
    );
    views
}
