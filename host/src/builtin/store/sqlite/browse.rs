//! Listings and range queries over the SQLite store, for hosts that let plugins browse the chat
//! world (MaiBot's `message.*` and `chat.*` capabilities): messages in a time window, streams
//! by kind.

use rusqlite::params;

use async_trait::async_trait;

use super::SqliteStore;
use super::messages::{MESSAGE_COLUMNS, message_from_row, stream_from_row};
use crate::builtin::engine::{ChatType, HistoryMessage, StreamInfo};
use crate::builtin::store::backend::BrowseBackend;
use crate::builtin::store::{MessageWindow, StoreError};

#[async_trait]
impl BrowseBackend for SqliteStore {
    /// The messages of a window, oldest first.
    async fn messages_in_window(
        &self,
        window: MessageWindow,
    ) -> Result<Vec<HistoryMessage>, StoreError> {
        self.call(move |conn| {
            let order = if window.earliest { "ASC" } else { "DESC" };
            let mut statement = conn.prepare_cached(&format!(
                "SELECT {MESSAGE_COLUMNS} FROM messages m
                 WHERE (?1 IS NULL OR m.stream_id = ?1)
                   AND m.created_at >= ?2 AND (?3 IS NULL OR m.created_at <= ?3)
                   AND (?4 = 0 OR m.is_bot = 0)
                 ORDER BY m.created_at {order}, m.seq {order} LIMIT ?5"
            ))?;
            let limit = if window.limit == 0 {
                -1
            } else {
                window.limit as i64
            };
            let rows = statement.query_map(
                params![
                    window.stream_id,
                    window.start,
                    window.end,
                    window.without_bot,
                    limit
                ],
                message_from_row,
            )?;
            let mut messages = rows.collect::<Result<Vec<_>, _>>()?;
            if !window.earliest {
                messages.reverse();
            }
            Ok(messages)
        })
        .await
    }

    /// How many messages a stream received at or after `start` (and up to `end`).
    async fn count_messages_since(
        &self,
        stream_id: &str,
        start: f64,
        end: Option<f64>,
    ) -> Result<usize, StoreError> {
        let stream_id = stream_id.to_owned();
        self.call(move |conn| {
            let count: i64 = conn.query_row(
                "SELECT count(*) FROM messages
                 WHERE stream_id = ?1 AND created_at >= ?2 AND (?3 IS NULL OR created_at <= ?3)",
                params![stream_id, start, end],
                |row| row.get(0),
            )?;
            Ok(count as usize)
        })
        .await
    }

    /// Streams, oldest first: of one platform (every platform when `None`) and one kind
    /// (every kind when `None`).
    async fn list_streams(
        &self,
        platform: Option<String>,
        chat_type: Option<ChatType>,
    ) -> Result<Vec<StreamInfo>, StoreError> {
        self.call(move |conn| {
            let mut statement = conn.prepare_cached(
                "SELECT stream_id, platform, chat_type, target_id, name FROM streams
                 WHERE (?1 IS NULL OR platform = ?1) AND (?2 IS NULL OR chat_type = ?2)
                 ORDER BY created_at, stream_id",
            )?;
            let rows = statement.query_map(
                params![platform, chat_type.map(ChatType::as_str)],
                stream_from_row,
            )?;
            Ok(rows.collect::<Result<Vec<_>, _>>()?)
        })
        .await
    }
}
