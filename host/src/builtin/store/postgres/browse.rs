//! Listings and range queries over the PostgreSQL store.

use async_trait::async_trait;

use super::PostgresStore;
use super::messages::{MESSAGE_COLUMNS, STREAM_COLUMNS, message_from_row, stream_from_row};
use crate::builtin::engine::{ChatType, HistoryMessage, StreamInfo};
use crate::builtin::store::backend::BrowseBackend;
use crate::builtin::store::{MessageWindow, StoreError};

#[async_trait]
impl BrowseBackend for PostgresStore {
    async fn messages_in_window(
        &self,
        window: MessageWindow,
    ) -> Result<Vec<HistoryMessage>, StoreError> {
        let order = if window.earliest { "ASC" } else { "DESC" };
        let client = self.client().await?;
        let statement = client
            .prepare_cached(&format!(
                "SELECT {MESSAGE_COLUMNS} FROM messages m
                 WHERE ($1::text IS NULL OR m.stream_id = $1)
                   AND m.created_at >= $2 AND ($3::float8 IS NULL OR m.created_at <= $3)
                   AND (NOT $4 OR NOT m.is_bot)
                 ORDER BY m.created_at {order}, m.seq {order} LIMIT $5"
            ))
            .await?;
        // LIMIT NULL is no limit.
        let limit = (window.limit != 0).then_some(window.limit as i64);
        let rows = client
            .query(
                &statement,
                &[
                    &window.stream_id,
                    &window.start,
                    &window.end,
                    &window.without_bot,
                    &limit,
                ],
            )
            .await?;
        let mut messages: Vec<HistoryMessage> = rows.iter().map(message_from_row).collect();
        if !window.earliest {
            messages.reverse();
        }
        Ok(messages)
    }

    async fn count_messages_since(
        &self,
        stream_id: &str,
        start: f64,
        end: Option<f64>,
    ) -> Result<usize, StoreError> {
        let client = self.client().await?;
        let statement = client
            .prepare_cached(
                "SELECT count(*) FROM messages
                 WHERE stream_id = $1 AND created_at >= $2
                   AND ($3::float8 IS NULL OR created_at <= $3)",
            )
            .await?;
        let row = client
            .query_one(&statement, &[&stream_id, &start, &end])
            .await?;
        Ok(row.get::<_, i64>(0) as usize)
    }

    async fn list_streams(
        &self,
        platform: Option<String>,
        chat_type: Option<ChatType>,
    ) -> Result<Vec<StreamInfo>, StoreError> {
        let client = self.client().await?;
        let statement = client
            .prepare_cached(&format!(
                "SELECT {STREAM_COLUMNS} FROM streams
                 WHERE ($1::text IS NULL OR platform = $1) AND ($2::text IS NULL OR chat_type = $2)
                 ORDER BY created_at, stream_id"
            ))
            .await?;
        let rows = client
            .query(&statement, &[&platform, &chat_type.map(ChatType::as_str)])
            .await?;
        Ok(rows.iter().map(stream_from_row).collect())
    }
}
