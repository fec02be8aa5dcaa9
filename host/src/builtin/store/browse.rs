//! Listings and range queries over the store, for hosts that let plugins browse the chat world
//! (MaiBot's `message.*`, `chat.*` and `emoji.*` capabilities): messages in a time window,
//! streams by kind, the whole emoji library, and removing an emoji.

use rusqlite::params;

use super::emojis::{COLUMNS as EMOJI_COLUMNS, from_row as emoji_row, load as load_emoji};
use super::messages::{MESSAGE_COLUMNS, message_from_row, stream_from_row};
use super::{Store, StoreError};
use crate::builtin::engine::{ChatType, Emoji, EmojiMatch, HistoryMessage, StreamInfo};

/// Messages in a time window, as [`Store::messages_in_window`] selects them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MessageWindow {
    /// One stream, or every stream when `None`.
    pub stream_id: Option<String>,
    /// Earliest time, Unix seconds (inclusive).
    pub start: f64,
    /// Latest time, Unix seconds (inclusive); no upper bound when `None`.
    pub end: Option<f64>,
    /// At most this many messages; 0 means all.
    pub limit: usize,
    /// With a limit: keep the earliest messages instead of the latest.
    pub earliest: bool,
    /// Leave out the bot's own messages.
    pub without_bot: bool,
}

impl Store {
    /// The messages of a window, oldest first.
    pub async fn messages_in_window(
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
    pub async fn count_messages_since(
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
    pub async fn list_streams(
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

    /// The whole emoji library with its images, in the order emojis were added.
    pub async fn all_emojis(&self) -> Result<Vec<Emoji>, StoreError> {
        self.call(|conn| {
            let mut statement = conn.prepare_cached(&format!(
                "SELECT {EMOJI_COLUMNS} FROM emojis e ORDER BY e.id"
            ))?;
            let rows = statement.query_map([], emoji_row)?;
            rows.map(|row| load_emoji(row?, EmojiMatch::Random))
                .collect::<Result<Vec<_>, _>>()
        })
        .await
    }

    /// Removes an emoji by id; whether it existed.
    pub async fn delete_emoji(&self, id: i64) -> Result<bool, StoreError> {
        self.call(move |conn| {
            let tx = conn.transaction()?;
            tx.execute("DELETE FROM emojis_fts WHERE rowid = ?1", [id])?;
            let removed = tx.execute("DELETE FROM emojis WHERE id = ?1", [id])?;
            tx.commit()?;
            Ok(removed > 0)
        })
        .await
    }
}
