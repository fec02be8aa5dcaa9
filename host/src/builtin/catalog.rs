//! The built-in catalog (MaiBot's `BUILTIN_TOOL_ENTRIES`): every tool with its stage,
//! visibility, chat scope and config gate, and [`BuiltinConfig::validate`], which checks the
//! configuration against it.

use maitool_protocol::{ChatScope, Visibility};

use super::config::{BuiltinConfig, ConfigError};
use super::entry::{BuiltinEntry, ConfigGate};
use super::handlers;
use super::stage::Stage;

/// The built-in tools, in listing order.
pub static BUILTIN_TOOL_ENTRIES: [BuiltinEntry; 11] = [
    BuiltinEntry {
        name: "wait",
        spec: handlers::wait_spec,
        handler: handlers::wait,
        stage: Stage::Both,
        visibility: Visibility::Visible,
        chat_scope: ChatScope::All,
        gate: ConfigGate::Always,
    },
    BuiltinEntry {
        name: "finish",
        spec: handlers::finish_spec,
        handler: handlers::finish,
        stage: Stage::Both,
        visibility: Visibility::Visible,
        chat_scope: ChatScope::All,
        gate: ConfigGate::Always,
    },
    BuiltinEntry {
        name: "reply",
        spec: handlers::reply_spec,
        handler: handlers::reply,
        stage: Stage::Action,
        visibility: Visibility::Visible,
        chat_scope: ChatScope::All,
        gate: ConfigGate::Always,
    },
    BuiltinEntry {
        name: "view_forward_message",
        spec: handlers::view_forward_message_spec,
        handler: handlers::view_forward_message,
        stage: Stage::Action,
        visibility: Visibility::Deferred,
        chat_scope: ChatScope::All,
        gate: ConfigGate::Always,
    },
    BuiltinEntry {
        name: "query_memory",
        spec: handlers::query_memory_spec,
        handler: handlers::query_memory,
        stage: Stage::Action,
        visibility: Visibility::Visible,
        chat_scope: ChatScope::All,
        gate: ConfigGate::MemoryQuery,
    },
    BuiltinEntry {
        name: "query_person_profile",
        spec: handlers::query_person_profile_spec,
        handler: handlers::query_person_profile,
        stage: Stage::Action,
        visibility: Visibility::Visible,
        chat_scope: ChatScope::All,
        gate: ConfigGate::PersonProfileQuery,
    },
    BuiltinEntry {
        name: "send_emoji",
        spec: handlers::send_emoji_spec,
        handler: handlers::send_emoji,
        stage: Stage::Action,
        visibility: Visibility::Visible,
        chat_scope: ChatScope::All,
        gate: ConfigGate::WithoutRichReply,
    },
    BuiltinEntry {
        name: "send_image",
        spec: handlers::send_image_spec,
        handler: handlers::send_image,
        stage: Stage::Action,
        visibility: Visibility::Visible,
        chat_scope: ChatScope::All,
        gate: ConfigGate::WithoutRichReply,
    },
    BuiltinEntry {
        name: "tool_search",
        spec: handlers::tool_search_spec,
        handler: handlers::tool_search,
        stage: Stage::Action,
        visibility: Visibility::Visible,
        chat_scope: ChatScope::All,
        gate: ConfigGate::Always,
    },
    BuiltinEntry {
        name: "fetch_history",
        spec: handlers::fetch_history_spec,
        handler: handlers::fetch_history,
        stage: Stage::Action,
        visibility: Visibility::Visible,
        chat_scope: ChatScope::All,
        gate: ConfigGate::FocusMode,
    },
    BuiltinEntry {
        name: "switch_chat",
        spec: handlers::switch_chat_spec,
        handler: handlers::switch_chat,
        stage: Stage::Action,
        visibility: Visibility::Visible,
        chat_scope: ChatScope::All,
        gate: ConfigGate::FocusMode,
    },
];

/// The catalog.
pub fn entries() -> &'static [BuiltinEntry] {
    &BUILTIN_TOOL_ENTRIES
}

impl BuiltinConfig {
    /// Checks what serde cannot: limits in range, and description overrides naming real tools
    /// with non-empty text.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.check_limits()?;
        let error = |field: &str, reason: String| ConfigError {
            field: field.to_owned(),
            reason,
        };
        let names: Vec<&str> = entries().iter().map(|e| e.name).collect();
        for (name, text) in &self.descriptions {
            if !names.contains(&name.as_str()) {
                return Err(error(
                    &format!("descriptions.{name}"),
                    format!(
                        "no built-in tool is called {name}; known: {}",
                        names.join(", ")
                    ),
                ));
            }
            if text.trim().is_empty() {
                return Err(error(
                    &format!("descriptions.{name}"),
                    "the description must not be empty".into(),
                ));
            }
        }
        Ok(())
    }
}
