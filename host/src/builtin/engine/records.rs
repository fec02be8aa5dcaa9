//! Requests and records for the engine's knowledge (memories, person profiles, emojis,
//! forwarded messages) and session state (chat switches, waits, tool results).

use std::fmt;
use std::str::FromStr;

use maitool_protocol::{JsonObject, ToolContentItem};
use serde::{Deserialize, Serialize};

use super::types::{ChatType, ForwardNode, HistoryMessage, StreamInfo};

/// How `query_memory` searches. See `docs/BUILTIN.md` for how each maps onto the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum MemoryMode {
    /// Full-text search by keywords.
    #[default]
    Search,
    /// By time range only (newest first), optionally narrowed by keywords.
    Time,
    /// Keywords within a time range.
    Hybrid,
    /// Episodes (experiences) only.
    Episode,
    /// An overall picture: the best hits of every kind of memory, interleaved.
    Aggregate,
}

impl MemoryMode {
    /// Every mode, sorted by name (the order of the schema's `enum`).
    pub const ALL: [MemoryMode; 5] = [
        MemoryMode::Aggregate,
        MemoryMode::Episode,
        MemoryMode::Hybrid,
        MemoryMode::Search,
        MemoryMode::Time,
    ];

    /// The model-facing name.
    pub fn as_str(self) -> &'static str {
        match self {
            MemoryMode::Search => "search",
            MemoryMode::Time => "time",
            MemoryMode::Hybrid => "hybrid",
            MemoryMode::Episode => "episode",
            MemoryMode::Aggregate => "aggregate",
        }
    }
}

impl fmt::Display for MemoryMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for MemoryMode {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim().to_ascii_lowercase();
        MemoryMode::ALL
            .into_iter()
            .find(|mode| mode.as_str() == text)
            .ok_or_else(|| {
                format!(
                    "unsupported memory query mode `{text}`: expected search, time, hybrid, \
                     episode or aggregate"
                )
            })
    }
}

/// One end of a time range: Unix seconds, or text such as `2024-05-01` or
/// `2024-05-01 18:30` (UTC).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum TimeBound {
    /// Unix seconds.
    Unix(f64),
    /// A date or date-time.
    Text(String),
}

/// A long-term memory search.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MemoryQuery {
    /// Keywords or a question; may be empty for a pure time search.
    pub query: String,
    /// How to search.
    pub mode: MemoryMode,
    /// At most this many hits.
    pub limit: usize,
    /// Only memories about this person.
    pub person_id: Option<String>,
    /// The chat asking: its session and stream ids. Memories scoped to another chat are hidden
    /// when `respect_filter` is set.
    pub chat_ids: Vec<String>,
    /// Start of the time range.
    pub time_start: Option<TimeBound>,
    /// End of the time range (a bare date means the end of that day).
    pub time_end: Option<TimeBound>,
    /// Hide memories scoped to other chats.
    pub respect_filter: bool,
}

/// One memory found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct MemoryHit {
    /// Store id.
    pub id: i64,
    /// `fact`, `episode`, `summary`, or any kind the seed used.
    pub kind: String,
    /// Short title, may be empty.
    pub title: String,
    /// The memory text.
    pub content: String,
    /// The person it is about, empty when none.
    pub person_id: String,
    /// The chat it is scoped to, empty when global.
    pub chat_id: String,
    /// When it was formed, in Unix seconds.
    pub time: f64,
    /// Relevance (higher is better; the negated bm25 rank), 0 for time-ordered results.
    pub score: f64,
}

/// A new memory for the store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct NewMemory {
    /// `fact` when empty.
    pub kind: String,
    /// Short title.
    pub title: String,
    /// The memory text (required).
    pub content: String,
    /// The person it is about.
    pub person_id: String,
    /// The chat it is scoped to; empty for every chat.
    pub chat_id: String,
    /// When it was formed; now when absent.
    pub time: Option<TimeBound>,
}

/// How to find a person.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PersonLookup {
    /// Exact person id.
    pub person_id: Option<String>,
    /// Name, nickname or alias (case-insensitive).
    pub person_name: Option<String>,
    /// Platform account, used when neither id nor name is given.
    pub platform: String,
    /// User id on that platform.
    pub user_id: String,
    /// At most this many traits in the answer.
    pub trait_limit: usize,
}

/// What the engine knows about a person.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct PersonProfile {
    /// Stable id.
    pub person_id: String,
    /// The name the bot knows them by.
    pub person_name: String,
    /// Their platform nickname.
    pub nickname: String,
    /// Platform of their account.
    pub platform: String,
    /// User id on that platform.
    pub user_id: String,
    /// Other names.
    pub aliases: Vec<String>,
    /// Free-text impression.
    pub profile: String,
    /// Individual traits and facts, most important first.
    pub traits: Vec<String>,
}

/// How to choose an emoji.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EmojiQuery {
    /// An emotion tag to match exactly (case-insensitive).
    pub emotion: Option<String>,
    /// Free text matched against descriptions and tags.
    pub description: Option<String>,
}

/// How an emoji was chosen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EmojiMatch {
    /// Its tags include the requested emotion.
    Emotion(String),
    /// Full-text match of the requested text against description and tags.
    Text(String),
    /// Nothing requested or nothing matched: a random emoji.
    Random,
}

/// An emoji from the library, with its image.
#[derive(Debug, Clone, PartialEq)]
pub struct Emoji {
    /// Store id.
    pub id: i64,
    /// What it shows.
    pub description: String,
    /// Its emotion tags.
    pub emotions: Vec<String>,
    /// MIME type of `data`.
    pub mime_type: String,
    /// The image.
    pub data: Vec<u8>,
    /// How it was chosen.
    pub matched: EmojiMatch,
}

/// One level of a forwarded-messages bundle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ForwardView {
    /// The message carrying the bundle.
    pub msg_id: String,
    /// The path walked to this level (indices of nested bundles).
    pub path: Vec<usize>,
    /// The messages at this level.
    pub nodes: Vec<ForwardNode>,
}

/// The chat to switch to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChatTarget {
    /// By stream id.
    StreamId(String),
    /// By platform address.
    Address {
        /// Platform name.
        platform: String,
        /// Group id or user id.
        id: String,
        /// Group or private.
        chat_type: ChatType,
    },
}

/// A request to move the session's attention to another chat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwitchChatRequest {
    /// The session switching.
    pub session_id: String,
    /// The stream it is in now.
    pub from_stream_id: String,
    /// Where to go.
    pub target: ChatTarget,
    /// At most this many unread messages come along (the newest).
    pub max_unread: usize,
}

/// The outcome of a chat switch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct SwitchedChat {
    /// The chat now in focus.
    pub stream: StreamInfo,
    /// Messages the session had not read there.
    pub unread_total: usize,
    /// The newest unread ones, oldest first, at most `max_unread`.
    pub messages: Vec<HistoryMessage>,
}

/// The outcome of asking to wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaitOutcome {
    /// False when the consecutive-wait limit was already reached: the session rests instead.
    pub entered: bool,
    /// Consecutive waits so far.
    pub consecutive: u32,
    /// The limit.
    pub max: u32,
}

/// A media item of a tool result, kept so later calls can refer to it by id.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolMedia {
    /// `tool_result:<call_id>:<n>`.
    pub media_id: String,
    /// The item.
    pub item: ToolContentItem,
}

/// One executed tool call, for the engine's records.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolResultRecord {
    /// Session.
    pub session_id: String,
    /// Stream.
    pub stream_id: String,
    /// The model's call id.
    pub call_id: String,
    /// Tool name.
    pub tool_name: String,
    /// Arguments as called.
    pub arguments: JsonObject,
    /// Outcome.
    pub success: bool,
    /// The history text of the result.
    pub content: String,
    /// The error, on failure.
    pub error_message: String,
}
