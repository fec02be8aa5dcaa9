use serde::{Deserialize, Serialize, Serializer};

use super::JsonObject;
use super::compact::serialize_compact;

/// The conversation state passed to a provider when a tool runs.
///
/// In MessagePack, empty fields are left out (a missing key is its default); JSON keeps them all.
#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
#[serde(default)]
pub struct ToolExecutionContext {
    /// Conversation session id.
    pub session_id: String,
    /// Chat stream id; plugins use it to send messages back.
    pub stream_id: String,
    /// The model's reasoning for the call.
    pub reasoning: String,
    /// `Some(true)` in a group chat, `Some(false)` in a private chat, `None` when unknown.
    pub is_group_chat: Option<bool>,
    /// Group id, in group chats.
    pub group_id: String,
    /// User id of the other party.
    pub user_id: String,
    /// Platform name, e.g. `qq`.
    pub platform: String,
    /// Extension data, e.g. `anchor_message`.
    pub metadata: JsonObject,
}

impl Serialize for ToolExecutionContext {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_compact!(serializer, "ToolExecutionContext", self, {
            session_id: !self.session_id.is_empty(),
            stream_id: !self.stream_id.is_empty(),
            reasoning: !self.reasoning.is_empty(),
            is_group_chat: self.is_group_chat.is_some(),
            group_id: !self.group_id.is_empty(),
            user_id: !self.user_id.is_empty(),
            platform: !self.platform.is_empty(),
            metadata: !self.metadata.is_empty(),
        })
    }
}

/// The part of the conversation state that decides which tools are exposed.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct ToolAvailabilityContext {
    /// Conversation session id.
    pub session_id: String,
    /// Chat stream id.
    pub stream_id: String,
    /// `Some(true)` in a group chat, `Some(false)` in a private chat, `None` when unknown.
    pub is_group_chat: Option<bool>,
    /// Group id, in group chats.
    pub group_id: String,
    /// User id of the other party.
    pub user_id: String,
    /// Platform name.
    pub platform: String,
}

impl From<&ToolExecutionContext> for ToolAvailabilityContext {
    fn from(ctx: &ToolExecutionContext) -> Self {
        Self {
            session_id: ctx.session_id.clone(),
            stream_id: ctx.stream_id.clone(),
            is_group_chat: ctx.is_group_chat,
            group_id: ctx.group_id.clone(),
            user_id: ctx.user_id.clone(),
            platform: ctx.platform.clone(),
        }
    }
}

impl ToolExecutionContext {
    /// The availability context derived from this execution context.
    pub fn availability(&self) -> ToolAvailabilityContext {
        ToolAvailabilityContext::from(self)
    }
}
