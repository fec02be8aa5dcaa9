//! The data the built-in tools exchange with the engine: requests the handlers make and the
//! records the engine answers with. Plain serde types, so a handler can put them into a result's
//! structured content as they are.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// What kind of chat a stream is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChatType {
    /// A group chat.
    Group,
    /// A one-to-one chat.
    Private,
}

impl ChatType {
    /// The name used in schemas and the store: `group` or `private`.
    pub fn as_str(self) -> &'static str {
        match self {
            ChatType::Group => "group",
            ChatType::Private => "private",
        }
    }
}

impl FromStr for ChatType {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim().to_ascii_lowercase().as_str() {
            "group" => Ok(ChatType::Group),
            "private" => Ok(ChatType::Private),
            other => Err(format!(
                "unknown chat type `{other}`: expected group or private"
            )),
        }
    }
}

/// A chat stream: one conversation on one platform.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct StreamInfo {
    /// The stream id the engine routes by.
    pub stream_id: String,
    /// Platform name, e.g. `qq`.
    pub platform: String,
    /// Group or private, when known.
    pub chat_type: Option<ChatType>,
    /// The group id (group chats) or the other party's user id (private chats).
    pub target_id: String,
    /// Display name.
    pub name: String,
}

/// Image bytes with their format.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ImageData {
    /// MIME type, e.g. `image/png`.
    pub mime_type: String,
    /// The encoded image.
    pub data: Vec<u8>,
    /// What the image shows, when known.
    pub description: String,
}

/// One message of a stream's history, as the tools show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct HistoryMessage {
    /// The message id (`msg_id` in tool arguments).
    pub message_id: String,
    /// The stream it belongs to.
    pub stream_id: String,
    /// Sender's user id.
    pub sender_id: String,
    /// Sender's display name.
    pub sender_name: String,
    /// Whether the bot sent it.
    pub is_bot: bool,
    /// Plain text.
    pub text: String,
    /// The message it quotes, if any.
    pub reply_to: Option<String>,
    /// User ids it mentions (`@`).
    pub mentions: Vec<String>,
    /// How many images it carries.
    pub image_count: usize,
    /// Whether it is a forwarded-messages bundle (see `view_forward_message`).
    pub is_forward: bool,
    /// When it was sent, in Unix seconds.
    pub time: f64,
}

/// A message to add to a stream's history.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NewMessage {
    /// The message id; a fresh one is generated when empty.
    pub message_id: String,
    /// The stream; created on first use.
    pub stream_id: String,
    /// Sender's user id.
    pub sender_id: String,
    /// Sender's display name.
    pub sender_name: String,
    /// Whether the bot sent it.
    pub is_bot: bool,
    /// Plain text.
    pub text: String,
    /// The message it quotes.
    pub reply_to: Option<String>,
    /// User ids it mentions.
    pub mentions: Vec<String>,
    /// Attached images, in order (`index` 0 is the first).
    pub images: Vec<ImageData>,
    /// A forwarded-messages bundle carried by this message.
    pub forward: Vec<ForwardNode>,
    /// When it was sent, in Unix seconds; now when `None`.
    pub time: Option<f64>,
}

/// The length and tone of a reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReplyStyle {
    /// A short remark.
    Brief,
    /// An ordinary reply.
    Normal,
    /// A long, detailed reply.
    Long,
}

impl ReplyStyle {
    /// The values offered to the model.
    pub const NAMES: [&'static str; 3] = ["brief", "normal", "long"];

    /// The model-facing name.
    pub fn as_str(self) -> &'static str {
        match self {
            ReplyStyle::Brief => "brief",
            ReplyStyle::Normal => "normal",
            ReplyStyle::Long => "long",
        }
    }
}

impl FromStr for ReplyStyle {
    type Err = String;

    /// Accepts the English names and MaiBot's original Chinese ones.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim() {
            "brief" | "简短表达" => Ok(ReplyStyle::Brief),
            "normal" | "正常回复" => Ok(ReplyStyle::Normal),
            "long" | "长回复" => Ok(ReplyStyle::Long),
            other => Err(format!(
                "unknown reply_style `{other}`: expected brief, normal or long"
            )),
        }
    }
}

/// Structured intent for choosing an expression style (MaiBot's `vector_intent` mode).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct ExpressionIntent {
    /// The message, fragment or topic the expression should fit.
    pub focus: String,
    /// What the reply should do: clarify, comfort, tease, ask back, ...
    pub reply_act: String,
    /// The scene: troubleshooting, sharing a screenshot, joking, ...
    pub scene: String,
    /// The desired tone.
    pub tone: String,
    /// Expression kinds to prefer.
    pub prefer: Vec<String>,
    /// Expression kinds or conclusions to avoid.
    pub avoid: Vec<String>,
}

/// Where an image the model refers to lives.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ImageRef {
    /// The `index`-th image (0-based) of history message `msg_id`.
    Message {
        /// The message id.
        msg_id: String,
        /// Position of the image in the message.
        index: usize,
    },
    /// A media item of an earlier tool result, `tool_result:<call_id>:<n>`.
    ToolMedia {
        /// The media id.
        media_index: String,
    },
}

impl fmt::Display for ImageRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImageRef::Message { msg_id, index } => write!(f, "image {index} of message {msg_id}"),
            ImageRef::ToolMedia { media_index } => write!(f, "tool media {media_index}"),
        }
    }
}

/// A reply for the engine to produce and send.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ReplyRequest {
    /// The session asking.
    pub session_id: String,
    /// The stream to send to.
    pub stream_id: String,
    /// The message being replied to.
    pub target_message_id: String,
    /// The text to send. `None` asks the engine to write it (only engines whose
    /// [`EngineCapabilities::generates_reply_text`](super::EngineCapabilities) is true can).
    pub text: Option<String>,
    /// Send as a quote of the target message.
    pub set_quote: bool,
    /// Requested length and tone.
    pub reply_style: Option<ReplyStyle>,
    /// Facts, relations and memories that help write the reply.
    pub reply_reference: String,
    /// Expression intent (`vector_intent` mode only).
    pub expression_intent: Option<ExpressionIntent>,
    /// Images to attach (rich replies only).
    pub attach_pics: Vec<ImageRef>,
    /// An emotion or description of an emoji to attach (rich replies only).
    pub attach_emoji: Option<String>,
    /// Message ids whose senders to mention (rich replies only).
    pub attach_at: Vec<String>,
    /// The model's current thinking.
    pub reasoning: String,
}

/// A message the engine sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct SentMessage {
    /// The new message's id.
    pub message_id: String,
    /// The stream it went to.
    pub stream_id: String,
    /// Its text.
    pub text: String,
    /// The message it quotes.
    pub quoted: Option<String>,
    /// Images it carries.
    pub image_count: usize,
    /// User ids it mentions.
    pub mentions: Vec<String>,
}

/// A request for recent history that the model has not seen yet.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HistoryQuery {
    /// The session asking.
    pub session_id: String,
    /// The stream to read; only this stream.
    pub stream_id: String,
    /// At most this many messages, newest first.
    pub limit: usize,
    /// Messages already in the model's context, to leave out.
    pub exclude_message_ids: Vec<String>,
}

/// One message inside a forwarded-messages bundle; `forward` holds a nested bundle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct ForwardNode {
    /// Sender's display name.
    pub sender_name: String,
    /// Sender's user id.
    pub sender_id: String,
    /// When it was sent, Unix seconds.
    pub time: Option<f64>,
    /// Its text.
    pub text: String,
    /// How many images it had.
    pub image_count: usize,
    /// A nested forwarded bundle.
    pub forward: Vec<ForwardNode>,
}
