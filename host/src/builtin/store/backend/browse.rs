//! [`BrowseBackend`]: listings and range queries over the chat world.

use async_trait::async_trait;

use crate::builtin::engine::{ChatType, HistoryMessage, StreamInfo};
use crate::builtin::store::{MessageWindow, StoreError};

/// What MaiBot's `message.*` and `chat.*` capabilities browse.
#[async_trait]
pub trait BrowseBackend {
    /// The messages of a window, oldest first.
    async fn messages_in_window(
        &self,
        window: MessageWindow,
    ) -> Result<Vec<HistoryMessage>, StoreError>;
    /// How many messages a stream received at or after `start` (and up to `end`).
    async fn count_messages_since(
        &self,
        stream_id: &str,
        start: f64,
        end: Option<f64>,
    ) -> Result<usize, StoreError>;
    /// Streams, oldest first, of one platform and one kind (each: every one when `None`).
    async fn list_streams(
        &self,
        platform: Option<String>,
        chat_type: Option<ChatType>,
    ) -> Result<Vec<StreamInfo>, StoreError>;
}
