//! [`MessageBackend`]: chat streams and their history.

use async_trait::async_trait;

use crate::builtin::engine::{
    ChatType, ForwardView, HistoryMessage, ImageData, NewMessage, StreamInfo,
};
use crate::builtin::store::{MessageImage, StoreError};

/// Streams, messages, their images and forwarded bundles, and what each session has read.
#[async_trait]
pub trait MessageBackend {
    /// Creates or updates a stream's description; empty fields keep their stored value.
    async fn upsert_stream(&self, info: StreamInfo) -> Result<(), StoreError>;
    /// A stream by id.
    async fn stream(&self, stream_id: &str) -> Result<Option<StreamInfo>, StoreError>;
    /// The oldest stream with this platform address.
    async fn find_stream(
        &self,
        platform: &str,
        chat_type: ChatType,
        target_id: &str,
    ) -> Result<Option<StreamInfo>, StoreError>;
    /// Appends a message (creating its stream) and returns it as stored; a duplicate id is
    /// refused with [`StoreError::MessageExists`].
    async fn append_message(&self, message: NewMessage) -> Result<HistoryMessage, StoreError>;
    /// A message by id, in any stream.
    async fn message(&self, message_id: &str) -> Result<Option<HistoryMessage>, StoreError>;
    /// The newest `limit` messages of a stream, newest first, leaving out `exclude`.
    async fn recent_messages(
        &self,
        stream_id: &str,
        limit: usize,
        exclude: &[String],
    ) -> Result<Vec<HistoryMessage>, StoreError>;
    /// The `index`-th image (0-based) of a message.
    async fn message_image(
        &self,
        message_id: &str,
        index: usize,
    ) -> Result<Option<ImageData>, StoreError>;
    /// The images of a message in order; their bytes only when `with_data`.
    async fn message_images(
        &self,
        message_id: &str,
        with_data: bool,
    ) -> Result<Vec<MessageImage>, StoreError>;
    /// How many messages of a stream the session has not read, and the newest `max` of them
    /// oldest first; they are marked read.
    async fn take_unread(
        &self,
        session_id: &str,
        stream_id: &str,
        max: usize,
    ) -> Result<(usize, Vec<HistoryMessage>), StoreError>;
    /// The stored bundle of `msg_id` in `stream_id`, walked down `path`.
    async fn forward_view(
        &self,
        stream_id: &str,
        msg_id: &str,
        path: &[usize],
    ) -> Result<Option<ForwardView>, StoreError>;
}
