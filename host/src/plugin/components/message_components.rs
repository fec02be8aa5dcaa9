//! The components a chat message reaches: the commands in the order a message tries them,
//! and the handlers of one event in the order they run.

use std::sync::Arc;

use maitool_protocol::command_match::{CommandMatch, first_match};
use maitool_protocol::wire::message_flow::EventType;

use super::trigger::Trigger;
use super::{ComponentEntry, ComponentRegistry};
use crate::plugin::chat_view::ChatView;

impl ComponentRegistry {
    /// The command enabled in `chat`, of a plugin passing `is_live`, that `text` calls, and
    /// how ([`first_match`]: every pattern before any alias, the longest alias among them).
    /// Commands are taken in plugin listing order (`order.rs`), then in each plugin's declaration
    /// order (MaiBot's order: its registry's insertion order). A command disabled globally
    /// or for the session, outside its chat scope or its allowed sessions is skipped, so
    /// another may match instead.
    pub(crate) fn match_command(
        &self,
        text: &str,
        chat: ChatView<'_>,
        is_live: impl Fn(&str) -> bool,
    ) -> Option<(Arc<ComponentEntry>, CommandMatch)> {
        let candidates: Vec<Arc<ComponentEntry>> = {
            let inner = self.inner.read();
            inner
                .plugin_order
                .iter()
                .filter(|plugin| is_live(plugin))
                .filter_map(|plugin| inner.by_plugin.get(plugin))
                .flatten()
                .filter(|entry| {
                    matches!(entry.trigger, Trigger::Command(_)) && inner.check_enabled(entry, chat)
                })
                .cloned()
                .collect()
        };
        // Matched outside the lock: a pattern may take a while.
        let commands = candidates.iter().filter_map(|entry| match &entry.trigger {
            Trigger::Command(command) => Some((entry, &command.matcher)),
            _ => None,
        });
        first_match(commands, text).map(|(entry, hit)| (Arc::clone(entry), hit))
    }

    /// The handlers of `event` enabled in `chat`, of plugins passing `is_live`, highest weight
    /// first; equal weights keep plugin listing order.
    pub(crate) fn event_handlers(
        &self,
        event: &EventType,
        chat: ChatView<'_>,
        is_live: impl Fn(&str) -> bool,
    ) -> Vec<Arc<ComponentEntry>> {
        let inner = self.inner.read();
        let mut handlers: Vec<(i64, Arc<ComponentEntry>)> = inner
            .plugin_order
            .iter()
            .filter(|plugin| is_live(plugin))
            .filter_map(|plugin| inner.by_plugin.get(plugin))
            .flatten()
            .filter_map(|entry| match &entry.trigger {
                Trigger::Event(trigger)
                    if trigger.event_type == *event && inner.check_enabled(entry, chat) =>
                {
                    Some((trigger.weight, Arc::clone(entry)))
                }
                _ => None,
            })
            .collect();
        // Stable: equal weights stay in plugin listing order.
        handlers.sort_by_key(|h| std::cmp::Reverse(h.0));
        handlers.into_iter().map(|(_, entry)| entry).collect()
    }

    /// Every live plugin's component that is not a tool, named `name` (bare or
    /// `plugin_id.name`): what a call to a command or an event handler by name is told.
    pub(crate) fn non_tool(
        &self,
        name: &str,
        is_live: impl Fn(&str) -> bool,
    ) -> Option<Arc<ComponentEntry>> {
        let inner = self.inner.read();
        inner
            .plugin_order
            .iter()
            .filter(|plugin| is_live(plugin))
            .filter_map(|plugin| inner.by_plugin.get(plugin))
            .flatten()
            .find(|entry| !entry.is_tool() && (entry.name == name || entry.full_name == name))
            .cloned()
    }
}
