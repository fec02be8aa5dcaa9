//! [`ToolRecordBackend`]: what the tool-call executor leaves behind.

use async_trait::async_trait;
use maitool_protocol::ToolContentItem;

use crate::builtin::engine::{ToolMedia, ToolResultRecord};
use crate::builtin::store::StoreError;

/// Media items of tool results (`tool_result:<call_id>:<n>`) and the log of executed calls.
#[async_trait]
pub trait ToolRecordBackend {
    /// Keeps media items of a session's tool results; a repeated id replaces the item.
    async fn put_tool_media(
        &self,
        session_id: &str,
        media: Vec<ToolMedia>,
    ) -> Result<(), StoreError>;
    /// A media item kept by [`put_tool_media`](Self::put_tool_media).
    async fn tool_media(
        &self,
        session_id: &str,
        media_id: &str,
    ) -> Result<Option<ToolContentItem>, StoreError>;
    /// Logs one executed tool call.
    async fn record_tool_call(&self, record: ToolResultRecord) -> Result<(), StoreError>;
    /// The logged tool calls of a session, oldest first.
    async fn tool_calls(&self, session_id: &str) -> Result<Vec<ToolResultRecord>, StoreError>;
}
