//! [`Store`]'s operations, each forwarded to its backend: callers use the handle and need no
//! backend trait in scope. The traits in [`backend`](super::backend) document each operation.

use maitool_protocol::ToolContentItem;
use serde_json::{Map, Value};

use super::{
    MaibotTable, MemoryStats, MessageImage, MessageWindow, NewEmoji, Store, StoreError, TableQuery,
};
use crate::builtin::engine::{
    ChatType, Emoji, EmojiQuery, ForwardView, HistoryMessage, ImageData, MemoryHit, MemoryQuery,
    NewMemory, NewMessage, PersonLookup, PersonProfile, StreamInfo, TimeBound, ToolMedia,
    ToolResultRecord,
};

impl Store {
    /// See [`MessageBackend::upsert_stream`](super::backend::MessageBackend::upsert_stream).
    pub async fn upsert_stream(&self, info: StreamInfo) -> Result<(), StoreError> {
        self.backend.upsert_stream(info).await
    }

    /// See [`MessageBackend::stream`](super::backend::MessageBackend::stream).
    pub async fn stream(&self, stream_id: &str) -> Result<Option<StreamInfo>, StoreError> {
        self.backend.stream(stream_id).await
    }

    /// See [`MessageBackend::find_stream`](super::backend::MessageBackend::find_stream).
    pub async fn find_stream(
        &self,
        platform: &str,
        chat_type: ChatType,
        target_id: &str,
    ) -> Result<Option<StreamInfo>, StoreError> {
        self.backend
            .find_stream(platform, chat_type, target_id)
            .await
    }

    /// See [`MessageBackend::append_message`](super::backend::MessageBackend::append_message).
    pub async fn append_message(&self, message: NewMessage) -> Result<HistoryMessage, StoreError> {
        self.backend.append_message(message).await
    }

    /// See [`MessageBackend::message`](super::backend::MessageBackend::message).
    pub async fn message(&self, message_id: &str) -> Result<Option<HistoryMessage>, StoreError> {
        self.backend.message(message_id).await
    }

    /// See [`MessageBackend::recent_messages`](super::backend::MessageBackend::recent_messages).
    pub async fn recent_messages(
        &self,
        stream_id: &str,
        limit: usize,
        exclude: &[String],
    ) -> Result<Vec<HistoryMessage>, StoreError> {
        self.backend
            .recent_messages(stream_id, limit, exclude)
            .await
    }

    /// See [`MessageBackend::message_image`](super::backend::MessageBackend::message_image).
    pub async fn message_image(
        &self,
        message_id: &str,
        index: usize,
    ) -> Result<Option<ImageData>, StoreError> {
        self.backend.message_image(message_id, index).await
    }

    /// See [`MessageBackend::message_images`](super::backend::MessageBackend::message_images).
    pub async fn message_images(
        &self,
        message_id: &str,
        with_data: bool,
    ) -> Result<Vec<MessageImage>, StoreError> {
        self.backend.message_images(message_id, with_data).await
    }

    /// See [`MessageBackend::take_unread`](super::backend::MessageBackend::take_unread).
    pub async fn take_unread(
        &self,
        session_id: &str,
        stream_id: &str,
        max: usize,
    ) -> Result<(usize, Vec<HistoryMessage>), StoreError> {
        self.backend.take_unread(session_id, stream_id, max).await
    }

    /// See [`MessageBackend::forward_view`](super::backend::MessageBackend::forward_view).
    pub async fn forward_view(
        &self,
        stream_id: &str,
        msg_id: &str,
        path: &[usize],
    ) -> Result<Option<ForwardView>, StoreError> {
        self.backend.forward_view(stream_id, msg_id, path).await
    }

    /// See [`BrowseBackend::messages_in_window`](super::backend::BrowseBackend::messages_in_window).
    pub async fn messages_in_window(
        &self,
        window: MessageWindow,
    ) -> Result<Vec<HistoryMessage>, StoreError> {
        self.backend.messages_in_window(window).await
    }

    /// See [`BrowseBackend::count_messages_since`](super::backend::BrowseBackend::count_messages_since).
    pub async fn count_messages_since(
        &self,
        stream_id: &str,
        start: f64,
        end: Option<f64>,
    ) -> Result<usize, StoreError> {
        self.backend
            .count_messages_since(stream_id, start, end)
            .await
    }

    /// See [`BrowseBackend::list_streams`](super::backend::BrowseBackend::list_streams).
    pub async fn list_streams(
        &self,
        platform: Option<String>,
        chat_type: Option<ChatType>,
    ) -> Result<Vec<StreamInfo>, StoreError> {
        self.backend.list_streams(platform, chat_type).await
    }

    /// See [`MemoryBackend::add_memory`](super::backend::MemoryBackend::add_memory).
    pub async fn add_memory(&self, memory: NewMemory) -> Result<Option<i64>, StoreError> {
        self.backend.add_memory(memory).await
    }

    /// See [`MemoryBackend::search_memories`](super::backend::MemoryBackend::search_memories).
    pub async fn search_memories(&self, query: MemoryQuery) -> Result<Vec<MemoryHit>, StoreError> {
        self.backend.search_memories(query).await
    }

    /// See [`MemoryBackend::memory_stats`](super::backend::MemoryBackend::memory_stats).
    pub async fn memory_stats(&self) -> Result<MemoryStats, StoreError> {
        self.backend.memory_stats().await
    }

    /// See [`PersonBackend::upsert_person`](super::backend::PersonBackend::upsert_person).
    pub async fn upsert_person(&self, person: PersonProfile) -> Result<(), StoreError> {
        self.backend.upsert_person(person).await
    }

    /// See [`PersonBackend::find_person`](super::backend::PersonBackend::find_person).
    pub async fn find_person(
        &self,
        lookup: PersonLookup,
    ) -> Result<Option<PersonProfile>, StoreError> {
        self.backend.find_person(lookup).await
    }

    /// See [`EmojiBackend::add_emoji`](super::backend::EmojiBackend::add_emoji).
    pub async fn add_emoji(&self, emoji: NewEmoji) -> Result<i64, StoreError> {
        self.backend.add_emoji(emoji).await
    }

    /// See [`EmojiBackend::pick_emoji`](super::backend::EmojiBackend::pick_emoji).
    pub async fn pick_emoji(&self, query: EmojiQuery) -> Result<Option<Emoji>, StoreError> {
        self.backend.pick_emoji(query).await
    }

    /// See [`EmojiBackend::emoji_count`](super::backend::EmojiBackend::emoji_count).
    pub async fn emoji_count(&self) -> Result<usize, StoreError> {
        self.backend.emoji_count().await
    }

    /// See [`EmojiBackend::all_emojis`](super::backend::EmojiBackend::all_emojis).
    pub async fn all_emojis(&self) -> Result<Vec<Emoji>, StoreError> {
        self.backend.all_emojis().await
    }

    /// See [`EmojiBackend::delete_emoji`](super::backend::EmojiBackend::delete_emoji).
    pub async fn delete_emoji(&self, id: i64) -> Result<bool, StoreError> {
        self.backend.delete_emoji(id).await
    }

    /// See [`ToolRecordBackend::put_tool_media`](super::backend::ToolRecordBackend::put_tool_media).
    pub async fn put_tool_media(
        &self,
        session_id: &str,
        media: Vec<ToolMedia>,
    ) -> Result<(), StoreError> {
        self.backend.put_tool_media(session_id, media).await
    }

    /// See [`ToolRecordBackend::tool_media`](super::backend::ToolRecordBackend::tool_media).
    pub async fn tool_media(
        &self,
        session_id: &str,
        media_id: &str,
    ) -> Result<Option<ToolContentItem>, StoreError> {
        self.backend.tool_media(session_id, media_id).await
    }

    /// See [`ToolRecordBackend::record_tool_call`](super::backend::ToolRecordBackend::record_tool_call).
    pub async fn record_tool_call(&self, record: ToolResultRecord) -> Result<(), StoreError> {
        self.backend.record_tool_call(record).await
    }

    /// See [`ToolRecordBackend::tool_calls`](super::backend::ToolRecordBackend::tool_calls).
    pub async fn tool_calls(&self, session_id: &str) -> Result<Vec<ToolResultRecord>, StoreError> {
        self.backend.tool_calls(session_id).await
    }

    /// See [`MaibotBackend::maibot_rows`](super::backend::MaibotBackend::maibot_rows).
    pub async fn maibot_rows(
        &self,
        table: MaibotTable,
        query: TableQuery,
    ) -> Result<Vec<Map<String, Value>>, StoreError> {
        self.backend.maibot_rows(table, query).await
    }

    /// See [`MaibotBackend::maibot_count`](super::backend::MaibotBackend::maibot_count).
    pub async fn maibot_count(
        &self,
        table: MaibotTable,
        filters: Vec<(String, Value)>,
    ) -> Result<usize, StoreError> {
        self.backend.maibot_count(table, filters).await
    }

    /// See [`TimeBackend::parse_time`](super::backend::TimeBackend::parse_time).
    pub async fn parse_time(&self, bound: &TimeBound) -> Result<f64, StoreError> {
        self.backend.parse_time(bound).await
    }
}
