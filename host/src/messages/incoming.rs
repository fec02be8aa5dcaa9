//! A chat message as the host learns of it, and the checks it passes before anything runs.

use serde::{Deserialize, Serialize};

use crate::builtin::engine::{ChatType, ImageData, StreamInfo};

/// A chat message someone sent to the bot: what an engine, the control socket
/// (`maitool message`) or a runner hands [`MessageFlow::receive`](super::MessageFlow::receive).
///
/// `stream_id` is the conversation (MaiBot's session): a new one is opened in the store with
/// `platform` and, in a group, `group_id`; a known one keeps what it was opened with. A
/// message has text or at least one image.
///
/// ```
/// use maitool_host::messages::ChatMessage;
///
/// let message = ChatMessage::new("qq-group-42", "u7", "/weather Paris")
///     .in_group("42")
///     .on_platform("qq")
///     .from_user_named("Alice");
/// assert!(message.is_group());
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ChatMessage {
    /// The message id; a fresh one is made when empty. An id already in the store is refused.
    pub message_id: String,
    /// The conversation.
    pub stream_id: String,
    /// Platform (`qq`, `telegram`, ...); needed to open a stream the store does not know.
    pub platform: String,
    /// The sender.
    pub user_id: String,
    /// The sender's display name (the user id when empty).
    pub user_name: String,
    /// The group, empty in a private chat.
    pub group_id: String,
    /// The group's name, if known.
    pub group_name: String,
    /// Plain text.
    pub text: String,
    /// Attached images, in order.
    #[serde(skip)]
    pub images: Vec<ImageData>,
    /// User ids it mentions (`@`).
    pub mentions: Vec<String>,
    /// The message it quotes.
    pub reply_to: Option<String>,
    /// When it was sent, in Unix seconds; now when `None`.
    pub time: Option<f64>,
}

impl ChatMessage {
    /// A text message of `user_id` in `stream_id`.
    pub fn new(
        stream_id: impl Into<String>,
        user_id: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        ChatMessage {
            stream_id: stream_id.into(),
            user_id: user_id.into(),
            text: text.into(),
            ..ChatMessage::default()
        }
    }

    /// In group `group_id`.
    pub fn in_group(mut self, group_id: impl Into<String>) -> Self {
        self.group_id = group_id.into();
        self
    }

    /// On `platform`.
    pub fn on_platform(mut self, platform: impl Into<String>) -> Self {
        self.platform = platform.into();
        self
    }

    /// From a user called `name`.
    pub fn from_user_named(mut self, name: impl Into<String>) -> Self {
        self.user_name = name.into();
        self
    }

    /// Whether it was sent in a group.
    pub fn is_group(&self) -> bool {
        !self.group_id.is_empty()
    }

    /// The sender's name, else their id.
    pub fn sender_name(&self) -> &str {
        if self.user_name.is_empty() {
            &self.user_id
        } else {
            &self.user_name
        }
    }

    /// The stream this message opens, when the store does not know `stream_id`.
    pub(super) fn new_stream(&self) -> StreamInfo {
        StreamInfo {
            stream_id: self.stream_id.clone(),
            platform: self.platform.clone(),
            chat_type: Some(if self.is_group() {
                ChatType::Group
            } else {
                ChatType::Private
            }),
            target_id: if self.is_group() {
                self.group_id.clone()
            } else {
                self.user_id.clone()
            },
            name: if self.is_group() {
                self.group_name.clone()
            } else {
                self.sender_name().to_owned()
            },
        }
    }
}
