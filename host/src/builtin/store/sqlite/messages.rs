//! Chat streams and their message history, with attached images and forwarded bundles.

use rusqlite::{Connection, OptionalExtension, Row, params};

use async_trait::async_trait;

use super::SqliteStore;
use crate::builtin::engine::{
    ChatType, ForwardView, HistoryMessage, ImageData, NewMessage, StreamInfo,
};
use crate::builtin::store::backend::MessageBackend;
use crate::builtin::store::images::sha256_hex;
use crate::builtin::store::time::now;
use crate::builtin::store::types::fresh_id;
use crate::builtin::store::{MessageImage, StoreError};

pub(super) const MESSAGE_COLUMNS: &str = "m.message_id, m.stream_id, m.sender_id, m.sender_name, m.is_bot, \
     m.text, m.reply_to, m.mentions, m.created_at, \
     (SELECT count(*) FROM message_images i WHERE i.message_id = m.message_id), \
     EXISTS (SELECT 1 FROM forward_messages f WHERE f.message_id = m.message_id)";

pub(super) fn message_from_row(row: &Row<'_>) -> rusqlite::Result<HistoryMessage> {
    let mentions: String = row.get(7)?;
    Ok(HistoryMessage {
        message_id: row.get(0)?,
        stream_id: row.get(1)?,
        sender_id: row.get(2)?,
        sender_name: row.get(3)?,
        is_bot: row.get(4)?,
        text: row.get(5)?,
        reply_to: row.get(6)?,
        // Written by this module as a JSON array of strings; a hand-edited bad value reads as
        // no mentions rather than hiding the whole message.
        mentions: serde_json::from_str(&mentions).unwrap_or_default(),
        time: row.get(8)?,
        image_count: row.get::<_, i64>(9)? as usize,
        is_forward: row.get(10)?,
    })
}

pub(super) fn stream_from_row(row: &Row<'_>) -> rusqlite::Result<StreamInfo> {
    let chat_type: Option<String> = row.get(2)?;
    Ok(StreamInfo {
        stream_id: row.get(0)?,
        platform: row.get(1)?,
        chat_type: chat_type.and_then(|kind| kind.parse::<ChatType>().ok()),
        target_id: row.get(3)?,
        name: row.get(4)?,
    })
}

pub(super) fn upsert_stream(conn: &Connection, info: &StreamInfo) -> Result<(), StoreError> {
    if info.stream_id.trim().is_empty() {
        return Err(StoreError::Invalid("a stream needs a stream_id".into()));
    }
    // Fields left empty keep what an earlier upsert recorded.
    conn.execute(
        "INSERT INTO streams (stream_id, platform, chat_type, target_id, name, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (stream_id) DO UPDATE SET
           platform = CASE WHEN excluded.platform = '' THEN platform ELSE excluded.platform END,
           chat_type = coalesce(excluded.chat_type, chat_type),
           target_id = CASE WHEN excluded.target_id = '' THEN target_id ELSE excluded.target_id END,
           name = CASE WHEN excluded.name = '' THEN name ELSE excluded.name END",
        params![
            info.stream_id,
            info.platform,
            info.chat_type.map(ChatType::as_str),
            info.target_id,
            info.name,
            now()
        ],
    )?;
    Ok(())
}

pub(super) fn stream(conn: &Connection, stream_id: &str) -> Result<Option<StreamInfo>, StoreError> {
    Ok(conn
        .query_row(
            "SELECT stream_id, platform, chat_type, target_id, name FROM streams
             WHERE stream_id = ?1",
            [stream_id],
            stream_from_row,
        )
        .optional()?)
}

pub(super) fn insert_message(
    conn: &mut Connection,
    message: NewMessage,
) -> Result<HistoryMessage, StoreError> {
    if message.stream_id.trim().is_empty() {
        return Err(StoreError::Invalid("a message needs a stream_id".into()));
    }
    let message_id = if message.message_id.trim().is_empty() {
        fresh_id(if message.is_bot { "bot" } else { "msg" })
    } else {
        message.message_id.trim().to_owned()
    };
    let mentions = serde_json::to_string(&message.mentions)
        .map_err(|err| StoreError::Invalid(format!("mentions: {err}")))?;
    let tx = conn.transaction()?;
    tx.execute(
        "INSERT OR IGNORE INTO streams (stream_id, created_at) VALUES (?1, ?2)",
        params![message.stream_id, now()],
    )?;
    let inserted = tx.execute(
        "INSERT OR IGNORE INTO messages
           (message_id, stream_id, sender_id, sender_name, is_bot, text, reply_to, mentions,
            created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![
            message_id,
            message.stream_id,
            message.sender_id,
            message.sender_name,
            message.is_bot,
            message.text,
            message.reply_to,
            mentions,
            message.time.unwrap_or_else(now),
        ],
    )?;
    if inserted == 0 {
        return Err(StoreError::MessageExists(message_id));
    }
    for (index, image) in message.images.iter().enumerate() {
        tx.execute(
            "INSERT INTO message_images (message_id, idx, mime_type, data, description, hash)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                message_id,
                index as i64,
                image.mime_type,
                image.data,
                image.description,
                sha256_hex(&image.data)
            ],
        )?;
    }
    if !message.forward.is_empty() {
        super::forwards::insert(&tx, &message_id, &message.forward)?;
    }
    let stored = message_by_id(&tx, &message_id)?
        .ok_or_else(|| StoreError::Corrupted(format!("message {message_id} vanished")))?;
    tx.commit()?;
    Ok(stored)
}

pub(super) fn message_by_id(
    conn: &Connection,
    message_id: &str,
) -> Result<Option<HistoryMessage>, StoreError> {
    Ok(conn
        .query_row(
            &format!("SELECT {MESSAGE_COLUMNS} FROM messages m WHERE m.message_id = ?1"),
            [message_id],
            message_from_row,
        )
        .optional()?)
}

#[async_trait]
impl MessageBackend for SqliteStore {
    /// Creates or updates a stream's description; empty fields keep their stored value.
    async fn upsert_stream(&self, info: StreamInfo) -> Result<(), StoreError> {
        self.call(move |conn| upsert_stream(conn, &info)).await
    }

    /// A stream by id.
    async fn stream(&self, stream_id: &str) -> Result<Option<StreamInfo>, StoreError> {
        let stream_id = stream_id.to_owned();
        self.call(move |conn| stream(conn, &stream_id)).await
    }

    /// A stream by platform address.
    async fn find_stream(
        &self,
        platform: &str,
        chat_type: ChatType,
        target_id: &str,
    ) -> Result<Option<StreamInfo>, StoreError> {
        let (platform, target_id) = (platform.to_owned(), target_id.to_owned());
        self.call(move |conn| {
            Ok(conn
                .query_row(
                    "SELECT stream_id, platform, chat_type, target_id, name FROM streams
                     WHERE platform = ?1 AND chat_type = ?2 AND target_id = ?3
                     ORDER BY created_at LIMIT 1",
                    params![platform, chat_type.as_str(), target_id],
                    stream_from_row,
                )
                .optional()?)
        })
        .await
    }

    /// Appends a message to its stream's history (creating the stream) and returns it as
    /// stored. A duplicate message id is refused.
    async fn append_message(&self, message: NewMessage) -> Result<HistoryMessage, StoreError> {
        self.call(move |conn| insert_message(conn, message)).await
    }

    /// A message by id, in any stream.
    async fn message(&self, message_id: &str) -> Result<Option<HistoryMessage>, StoreError> {
        let message_id = message_id.to_owned();
        self.call(move |conn| message_by_id(conn, &message_id))
            .await
    }

    /// The newest `limit` messages of a stream, newest first, leaving out `exclude`.
    async fn recent_messages(
        &self,
        stream_id: &str,
        limit: usize,
        exclude: &[String],
    ) -> Result<Vec<HistoryMessage>, StoreError> {
        let stream_id = stream_id.to_owned();
        let exclude = serde_json::Value::from(exclude.to_vec()).to_string();
        self.call(move |conn| {
            let mut statement = conn.prepare_cached(&format!(
                "SELECT {MESSAGE_COLUMNS} FROM messages m
                 WHERE m.stream_id = ?1
                   AND m.message_id NOT IN (SELECT value FROM json_each(?2))
                 ORDER BY m.seq DESC LIMIT ?3"
            ))?;
            let rows =
                statement.query_map(params![stream_id, exclude, limit as i64], message_from_row)?;
            Ok(rows.collect::<Result<Vec<_>, _>>()?)
        })
        .await
    }

    /// The `index`-th image (0-based) of a message.
    async fn message_image(
        &self,
        message_id: &str,
        index: usize,
    ) -> Result<Option<ImageData>, StoreError> {
        let message_id = message_id.to_owned();
        self.call(move |conn| {
            Ok(conn
                .query_row(
                    "SELECT mime_type, data, description FROM message_images
                     WHERE message_id = ?1 AND idx = ?2",
                    params![message_id, index as i64],
                    |row| {
                        Ok(ImageData {
                            mime_type: row.get(0)?,
                            data: row.get(1)?,
                            description: row.get(2)?,
                        })
                    },
                )
                .optional()?)
        })
        .await
    }

    /// The images of a message in order, with their hash and description; their bytes only
    /// when `with_data` (they can be large, and most readers want the description).
    async fn message_images(
        &self,
        message_id: &str,
        with_data: bool,
    ) -> Result<Vec<MessageImage>, StoreError> {
        let message_id = message_id.to_owned();
        self.call(move |conn| {
            let mut statement = conn.prepare_cached(
                "SELECT mime_type, hash, description, CASE WHEN ?2 THEN data END
                 FROM message_images WHERE message_id = ?1 ORDER BY idx",
            )?;
            let rows = statement.query_map(params![message_id, with_data], |row| {
                Ok(MessageImage {
                    mime_type: row.get(0)?,
                    hash: row.get(1)?,
                    description: row.get(2)?,
                    data: row.get::<_, Option<Vec<u8>>>(3)?.unwrap_or_default(),
                })
            })?;
            Ok(rows.collect::<Result<Vec<_>, _>>()?)
        })
        .await
    }

    /// Messages of a stream the session has not read: how many there are, and the newest
    /// `max` of them oldest first. They are marked read.
    async fn take_unread(
        &self,
        session_id: &str,
        stream_id: &str,
        max: usize,
    ) -> Result<(usize, Vec<HistoryMessage>), StoreError> {
        let (session_id, stream_id) = (session_id.to_owned(), stream_id.to_owned());
        self.call(move |conn| {
            let tx = conn.transaction()?;
            let last_seq: i64 = tx
                .query_row(
                    "SELECT last_seq FROM session_reads WHERE session_id = ?1 AND stream_id = ?2",
                    params![session_id, stream_id],
                    |row| row.get(0),
                )
                .optional()?
                .unwrap_or(0);
            let (total, newest): (i64, Option<i64>) = tx.query_row(
                "SELECT count(*), max(seq) FROM messages WHERE stream_id = ?1 AND seq > ?2",
                params![stream_id, last_seq],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )?;
            let mut messages = {
                let mut statement = tx.prepare_cached(&format!(
                    "SELECT {MESSAGE_COLUMNS} FROM messages m
                     WHERE m.stream_id = ?1 AND m.seq > ?2 ORDER BY m.seq DESC LIMIT ?3"
                ))?;
                let rows = statement.query_map(
                    params![stream_id, last_seq, max as i64],
                    message_from_row,
                )?;
                rows.collect::<Result<Vec<_>, _>>()?
            };
            messages.reverse();
            if let Some(newest) = newest {
                tx.execute(
                    "INSERT INTO session_reads (session_id, stream_id, last_seq) VALUES (?1, ?2, ?3)
                     ON CONFLICT (session_id, stream_id) DO UPDATE SET last_seq = excluded.last_seq",
                    params![session_id, stream_id, newest],
                )?;
            }
            tx.commit()?;
            Ok((total as usize, messages))
        })
        .await
    }

    async fn forward_view(
        &self,
        stream_id: &str,
        msg_id: &str,
        path: &[usize],
    ) -> Result<Option<ForwardView>, StoreError> {
        let (stream_id, msg_id, path) = (stream_id.to_owned(), msg_id.to_owned(), path.to_vec());
        self.call(move |conn| super::forwards::view(conn, &stream_id, &msg_id, &path))
            .await
    }
}
