//! [`StoreEngine`]: the default [`EngineBridge`] over the embedded [`Store`].
//!
//! It depends on the engine contract (`engine/`) and the store (`store/`); neither depends on
//! it.
//!
//! It stands in for a chat runtime: "sending" a reply, image or emoji appends a bot message to
//! the stream's history in the store, which `fetch_history` then returns; loop state (waits,
//! rests, finished rounds, focus) is kept per session in a `SessionStateStore`, memory by
//! default. It writes no text itself, so
//! `reply` requires a `text` argument with this engine.

mod sessions;

use async_trait::async_trait;
use maitool_protocol::ContentType;

use self::sessions::Sessions;
pub use self::sessions::{
    MemorySessionStates, PostgresSessionStates, SessionState, SessionStateStore, WaitState,
};
use crate::builtin::engine::{
    ChatTarget, Emoji, EmojiQuery, EngineBridge, EngineCapabilities, EngineError, ForwardView,
    HistoryMessage, HistoryQuery, ImageData, ImageRef, MemoryHit, MemoryQuery, NewMessage,
    PersonLookup, PersonProfile, ReplyRequest, SentMessage, SwitchChatRequest, SwitchedChat,
    ToolMedia, ToolResultRecord, WaitOutcome,
};
use crate::builtin::store::Store;

/// The bot's own user id in the histories it writes.
const BOT_ID: &str = "maitool";
/// The bot's display name in the histories it writes.
const BOT_NAME: &str = "MaiTool";

/// The default engine: the built-in tools over the embedded store. "Sending" appends a bot
/// message to the stream's history in the store; loop state is kept per session in a [`SessionStateStore`] (memory by default).
#[derive(Debug)]
pub struct StoreEngine {
    store: Store,
    sessions: Sessions,
}

impl StoreEngine {
    /// An engine over `store`, sending as user `maitool` named `MaiTool`, its session loop
    /// state in memory.
    pub fn new(store: Store) -> Self {
        Self {
            store,
            sessions: Sessions::default(),
        }
    }

    /// An engine over `store` whose session loop state lives in `sessions` (shared between
    /// hosts with [`PostgresSessionStates`]).
    pub fn with_session_states(
        store: Store,
        sessions: std::sync::Arc<dyn SessionStateStore>,
    ) -> Self {
        Self {
            store,
            sessions: Sessions::new(sessions),
        }
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The loop state of a session (the default state for a session never seen).
    pub async fn session_state(&self, session_id: &str) -> Result<SessionState, EngineError> {
        self.sessions.snapshot(session_id).await
    }

    async fn message_in_stream(
        &self,
        stream_id: &str,
        msg_id: &str,
    ) -> Result<HistoryMessage, EngineError> {
        match self.store.message(msg_id).await? {
            Some(message) if message.stream_id == stream_id => Ok(message),
            _ => Err(EngineError::NotFound(format!(
                "message {msg_id} not found in this chat (stream {stream_id})"
            ))),
        }
    }

    async fn send(
        &self,
        stream_id: &str,
        text: String,
        reply_to: Option<String>,
        mentions: Vec<String>,
        images: Vec<ImageData>,
    ) -> Result<SentMessage, EngineError> {
        let image_count = images.len();
        let stored = self
            .store
            .append_message(NewMessage {
                stream_id: stream_id.to_owned(),
                sender_id: BOT_ID.to_owned(),
                sender_name: BOT_NAME.to_owned(),
                is_bot: true,
                text,
                reply_to,
                mentions,
                images,
                ..NewMessage::default()
            })
            .await?;
        tracing::debug!(stream = %stream_id, message = %stored.message_id, "store engine sent a message");
        Ok(SentMessage {
            message_id: stored.message_id,
            stream_id: stored.stream_id,
            text: stored.text,
            quoted: stored.reply_to,
            image_count,
            mentions: stored.mentions,
        })
    }
}

#[async_trait]
impl EngineBridge for StoreEngine {
    fn capabilities(&self) -> EngineCapabilities {
        EngineCapabilities {
            generates_reply_text: false,
        }
    }

    async fn send_reply(&self, request: ReplyRequest) -> Result<SentMessage, EngineError> {
        let text = request
            .text
            .as_deref()
            .map(str::trim)
            .unwrap_or_default()
            .to_owned();
        let has_attachments = !request.attach_pics.is_empty()
            || request.attach_emoji.is_some()
            || !request.attach_at.is_empty();
        if text.is_empty() && !has_attachments {
            return Err(EngineError::Invalid(
                "reply needs a non-empty `text`: this engine sends the text it is given".into(),
            ));
        }
        let target = self
            .message_in_stream(&request.stream_id, &request.target_message_id)
            .await?;
        let mut images = Vec::with_capacity(request.attach_pics.len() + 1);
        for picture in &request.attach_pics {
            images.push(
                self.resolve_image(&request.session_id, &request.stream_id, picture)
                    .await?,
            );
        }
        if let Some(wanted) = &request.attach_emoji {
            let emoji = self
                .store
                .pick_emoji(EmojiQuery {
                    emotion: Some(wanted.clone()),
                    description: Some(wanted.clone()),
                })
                .await?
                .ok_or_else(|| EngineError::NotFound("the emoji library is empty".into()))?;
            images.push(ImageData {
                mime_type: emoji.mime_type,
                data: emoji.data,
                description: emoji.description,
            });
        }
        let mut mentions = Vec::with_capacity(request.attach_at.len());
        for msg_id in &request.attach_at {
            let message = self.message_in_stream(&request.stream_id, msg_id).await?;
            if !mentions.contains(&message.sender_id) {
                mentions.push(message.sender_id);
            }
        }
        let reply_to = request.set_quote.then_some(target.message_id);
        self.send(&request.stream_id, text, reply_to, mentions, images)
            .await
    }

    async fn fetch_history(&self, query: HistoryQuery) -> Result<Vec<HistoryMessage>, EngineError> {
        Ok(self
            .store
            .recent_messages(&query.stream_id, query.limit, &query.exclude_message_ids)
            .await?)
    }

    async fn query_memory(&self, query: MemoryQuery) -> Result<Vec<MemoryHit>, EngineError> {
        Ok(self.store.search_memories(query).await?)
    }

    async fn find_person(
        &self,
        lookup: PersonLookup,
    ) -> Result<Option<PersonProfile>, EngineError> {
        Ok(self.store.find_person(lookup).await?)
    }

    async fn pick_emoji(&self, query: EmojiQuery) -> Result<Option<Emoji>, EngineError> {
        Ok(self.store.pick_emoji(query).await?)
    }

    async fn resolve_image(
        &self,
        session_id: &str,
        stream_id: &str,
        image: &ImageRef,
    ) -> Result<ImageData, EngineError> {
        match image {
            ImageRef::Message { msg_id, index } => {
                let message = self.message_in_stream(stream_id, msg_id).await?;
                self.store
                    .message_image(msg_id, *index)
                    .await?
                    .ok_or_else(|| {
                        EngineError::NotFound(format!(
                            "message {msg_id} has {} image(s); there is no image at index {index} \
                             (indexes start at 0)",
                            message.image_count
                        ))
                    })
            }
            ImageRef::ToolMedia { media_index } => {
                let item = self
                    .store
                    .tool_media(session_id, media_index)
                    .await?
                    .ok_or_else(|| {
                        EngineError::NotFound(format!(
                            "no tool result media {media_index} in this session"
                        ))
                    })?;
                let is_image =
                    item.content_type == ContentType::Image || item.mime_type.starts_with("image/");
                if !is_image || item.data.is_empty() {
                    return Err(EngineError::Invalid(format!(
                        "tool result media {media_index} is {} ({}), not an image",
                        item.content_type.as_str(),
                        if item.mime_type.is_empty() {
                            "no MIME type"
                        } else {
                            &item.mime_type
                        }
                    )));
                }
                Ok(ImageData {
                    mime_type: item.mime_type,
                    data: item.data.0,
                    description: item.name,
                })
            }
        }
    }

    async fn send_image(
        &self,
        _session_id: &str,
        stream_id: &str,
        image: ImageData,
    ) -> Result<SentMessage, EngineError> {
        self.send(stream_id, String::new(), None, Vec::new(), vec![image])
            .await
    }

    async fn view_forward_message(
        &self,
        stream_id: &str,
        msg_id: &str,
        path: &[usize],
    ) -> Result<ForwardView, EngineError> {
        self.store
            .forward_view(stream_id, msg_id, path)
            .await?
            .ok_or_else(|| {
                EngineError::NotFound(format!(
                    "message {msg_id} in this chat (stream {stream_id}) carries no forwarded \
                     messages"
                ))
            })
    }

    async fn switch_chat(&self, request: SwitchChatRequest) -> Result<SwitchedChat, EngineError> {
        let stream = match &request.target {
            ChatTarget::StreamId(stream_id) => self.store.stream(stream_id).await?,
            ChatTarget::Address {
                platform,
                id,
                chat_type,
            } => self.store.find_stream(platform, *chat_type, id).await?,
        };
        let Some(stream) = stream else {
            return Err(EngineError::NotFound(match &request.target {
                ChatTarget::StreamId(stream_id) => format!("no chat with id {stream_id}"),
                ChatTarget::Address {
                    platform,
                    id,
                    chat_type,
                } => format!("no {} chat {id} on platform {platform}", chat_type.as_str()),
            }));
        };
        if stream.stream_id == request.from_stream_id {
            return Err(EngineError::Invalid(format!(
                "already in chat {}",
                stream.stream_id
            )));
        }
        let (unread_total, messages) = self
            .store
            .take_unread(&request.session_id, &stream.stream_id, request.max_unread)
            .await?;
        self.sessions
            .focus(&request.session_id, &stream.stream_id)
            .await?;
        Ok(SwitchedChat {
            stream,
            unread_total,
            messages,
        })
    }

    async fn enter_wait(
        &self,
        session_id: &str,
        seconds: u64,
        call_id: &str,
        max: u32,
    ) -> Result<WaitOutcome, EngineError> {
        self.sessions
            .enter_wait(session_id, seconds, call_id, max)
            .await
    }

    async fn reset_consecutive_waits(&self, session_id: &str) -> Result<(), EngineError> {
        self.sessions.reset_waits(session_id).await
    }

    async fn end_round(&self, session_id: &str, reason: &str) -> Result<(), EngineError> {
        self.sessions.end_round(session_id, reason).await
    }

    async fn record_tool_media(
        &self,
        session_id: &str,
        media: &[ToolMedia],
    ) -> Result<(), EngineError> {
        Ok(self
            .store
            .put_tool_media(session_id, media.to_vec())
            .await?)
    }

    async fn record_tool_result(&self, record: ToolResultRecord) -> Result<(), EngineError> {
        Ok(self.store.record_tool_call(record).await?)
    }
}
