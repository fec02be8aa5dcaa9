//! The bridge between the built-in tools and the reasoning engine that embeds them.
//!
//! The handlers never touch chat platforms, databases or model calls themselves: they ask the
//! engine through [`EngineBridge`]. An embedding engine implements the trait over its own chat
//! runtime. This module is that contract alone, with no storage behind it; the default
//! implementation over the embedded SQLite store is
//! [`StoreEngine`](crate::builtin::StoreEngine), which makes every built-in usable from the
//! `maitool` binary with nothing else running.

mod records;
mod types;

use async_trait::async_trait;

pub use records::{
    ChatTarget, Emoji, EmojiMatch, EmojiQuery, ForwardView, MemoryHit, MemoryMode, MemoryQuery,
    NewMemory, PersonLookup, PersonProfile, SwitchChatRequest, SwitchedChat, TimeBound, ToolMedia,
    ToolResultRecord, WaitOutcome,
};
pub use types::{
    ChatType, ExpressionIntent, ForwardNode, HistoryMessage, HistoryQuery, ImageData, ImageRef,
    NewMessage, ReplyRequest, ReplyStyle, SentMessage, StreamInfo,
};

/// Why the engine could not do what a tool asked. The handler turns it into a failed result
/// whose error message is this error's text, so the text is written for the model.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// A message, person, chat, image or emoji the call named does not exist.
    #[error("{0}")]
    NotFound(String),
    /// The request is malformed or contradicts the engine's state.
    #[error("{0}")]
    Invalid(String),
    /// The engine does not support this request.
    #[error("{0}")]
    Unsupported(String),
    /// The engine's backend failed, as this text says.
    #[error("{0}")]
    Failed(String),
    /// The engine's backend failed with this error (its text is the message, and it stays the
    /// source for whoever walks the chain).
    #[error(transparent)]
    Backend(Box<dyn std::error::Error + Send + Sync>),
}

/// What an engine can do beyond the required methods; it shapes the tool specs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EngineCapabilities {
    /// The engine writes reply text itself from the model's thinking (MaiBot's replyer). When
    /// false, `reply` takes the text from a required `text` argument.
    pub generates_reply_text: bool,
}

/// What the built-in tools need from the reasoning engine. Every method is called from a tool
/// handler with the session and stream of the invocation; none is called while a lock of the
/// caller is held.
#[async_trait]
pub trait EngineBridge: Send + Sync + 'static {
    /// What the engine can do.
    fn capabilities(&self) -> EngineCapabilities;

    /// Produces and sends a reply to `request.stream_id`, and records it in that stream's
    /// history.
    async fn send_reply(&self, request: ReplyRequest) -> Result<SentMessage, EngineError>;

    /// The newest messages of one stream that are not in `exclude_message_ids`, newest first.
    async fn fetch_history(&self, query: HistoryQuery) -> Result<Vec<HistoryMessage>, EngineError>;

    /// Searches long-term memory.
    async fn query_memory(&self, query: MemoryQuery) -> Result<Vec<MemoryHit>, EngineError>;

    /// Finds a person's profile.
    async fn find_person(&self, lookup: PersonLookup)
    -> Result<Option<PersonProfile>, EngineError>;

    /// Chooses an emoji from the library; `None` when the library is empty.
    async fn pick_emoji(&self, query: EmojiQuery) -> Result<Option<Emoji>, EngineError>;

    /// The bytes of an image in history or in an earlier tool result.
    async fn resolve_image(
        &self,
        session_id: &str,
        stream_id: &str,
        image: &ImageRef,
    ) -> Result<ImageData, EngineError>;

    /// Sends an image (or an emoji) to a stream and records it in history.
    async fn send_image(
        &self,
        session_id: &str,
        stream_id: &str,
        image: ImageData,
    ) -> Result<SentMessage, EngineError>;

    /// One level of the forwarded-messages bundle carried by message `msg_id` of the stream.
    async fn view_forward_message(
        &self,
        stream_id: &str,
        msg_id: &str,
        path: &[usize],
    ) -> Result<ForwardView, EngineError>;

    /// Moves the session's attention to another chat.
    async fn switch_chat(&self, request: SwitchChatRequest) -> Result<SwitchedChat, EngineError>;

    /// Enters the wait state for `seconds` unless the session already waited `max` times in a
    /// row; then it rests instead and the outcome says `entered: false`.
    async fn enter_wait(
        &self,
        session_id: &str,
        seconds: u64,
        call_id: &str,
        max: u32,
    ) -> Result<WaitOutcome, EngineError>;

    /// Any tool other than `wait` ran: the next wait starts a new streak.
    async fn reset_consecutive_waits(&self, session_id: &str) -> Result<(), EngineError>;

    /// Ends the session's current round of thinking.
    async fn end_round(&self, session_id: &str, reason: &str) -> Result<(), EngineError>;

    /// Keeps the media items of a tool result so `send_image` and rich replies can refer to
    /// them by id.
    async fn record_tool_media(
        &self,
        session_id: &str,
        media: &[ToolMedia],
    ) -> Result<(), EngineError>;

    /// Records one executed tool call.
    async fn record_tool_result(&self, record: ToolResultRecord) -> Result<(), EngineError>;
}
