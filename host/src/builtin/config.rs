//! The `[builtin]` configuration: MaiBot's gates for the built-in tools, the embedded store,
//! seeding, and overrides of the descriptions the model sees.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::seed::SeedConfig;
use maitool_protocol::ChatScope;

/// How the engine selects expression styles for replies (MaiBot's
/// `expression.expression_selection_mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ExpressionSelectionMode {
    /// Styles chosen by the engine alone.
    #[default]
    Classic,
    /// The model passes a structured `expression_intent` with each `reply`.
    VectorIntent,
}

/// Configuration of the built-in tools. Every field has a default, so an empty table works.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BuiltinConfig {
    /// Rich replies: `reply` carries images, an emoji and mentions, and `send_emoji` and
    /// `send_image` are withdrawn (MaiBot's `experimental.enable_rich_reply`).
    pub enable_rich_reply: bool,
    /// Focus mode: offers `fetch_history` and `switch_chat` (MaiBot's
    /// `experimental.focus_mode`).
    pub focus_mode: bool,
    /// The chat types where focus mode applies.
    pub focus_mode_chat_scope: ChatScope,
    /// When not empty, focus mode applies only to these session (or stream) ids.
    pub focus_mode_sessions: Vec<String>,
    /// Offers `query_memory`.
    pub enable_memory_query_tool: bool,
    /// `query_memory`'s limit when the model gives none (clamped to 1..=20).
    pub memory_query_default_limit: u32,
    /// Offers `query_person_profile`.
    pub enable_person_profile_query_tool: bool,
    /// Expression selection; `vector_intent` adds `expression_intent` to `reply`.
    pub expression_selection_mode: ExpressionSelectionMode,
    /// Replies may quote their target (MaiBot's `chat.reply_style.enable_reply_quote`); when
    /// false, `set_quote` is ignored.
    pub enable_reply_quote: bool,
    /// How many `wait` calls in a row before the session rests instead.
    pub max_consecutive_wait_count: u32,
    /// The embedded store's database file; `:memory:` for a private in-memory one.
    pub database: PathBuf,
    /// Data imported into the store when the provider starts.
    pub seed: SeedConfig,
    /// Replacement descriptions by tool name: the text the model sees.
    pub descriptions: BTreeMap<String, String>,
}

impl Default for BuiltinConfig {
    fn default() -> Self {
        Self {
            enable_rich_reply: false,
            focus_mode: false,
            focus_mode_chat_scope: ChatScope::All,
            focus_mode_sessions: Vec::new(),
            enable_memory_query_tool: true,
            memory_query_default_limit: 5,
            enable_person_profile_query_tool: true,
            expression_selection_mode: ExpressionSelectionMode::Classic,
            enable_reply_quote: true,
            max_consecutive_wait_count: 3,
            database: PathBuf::from("data/maitool.sqlite3"),
            seed: SeedConfig::default(),
            descriptions: BTreeMap::new(),
        }
    }
}

/// A configuration value that cannot work.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("builtin.{field}: {reason}")]
pub struct ConfigError {
    /// The offending key, e.g. `descriptions.replyy`.
    pub field: String,
    /// Why.
    pub reason: String,
}

impl BuiltinConfig {
    /// Checks the limits serde cannot; [`validate`](Self::validate), in `catalog.rs`, adds
    /// the description overrides, which must name tools of the catalog.
    pub(crate) fn check_limits(&self) -> Result<(), ConfigError> {
        let error = |field: &str, reason: String| ConfigError {
            field: field.to_owned(),
            reason,
        };
        if self.max_consecutive_wait_count == 0 {
            return Err(error(
                "max_consecutive_wait_count",
                "must be at least 1".into(),
            ));
        }
        if !(1..=20).contains(&self.memory_query_default_limit) {
            return Err(error(
                "memory_query_default_limit",
                format!("{} is outside 1..=20", self.memory_query_default_limit),
            ));
        }
        if self.database.as_os_str().is_empty() {
            return Err(error("database", "must be a path or :memory:".into()));
        }
        Ok(())
    }

    /// Whether focus mode applies to a session in a chat of the given type; without a session
    /// only the chat type decides (MaiBot's `is_enabled_for_session` / `is_enabled_for_chat`).
    pub fn focus_enabled(&self, session_id: &str, stream_id: &str, is_group: Option<bool>) -> bool {
        if !self.focus_mode || !self.focus_mode_chat_scope.admits(is_group) {
            return false;
        }
        if self.focus_mode_sessions.is_empty() || (session_id.is_empty() && stream_id.is_empty()) {
            return true;
        }
        self.focus_mode_sessions
            .iter()
            .any(|id| id == session_id || id == stream_id)
    }
}
