//! Chat streams and their history in PostgreSQL.

use async_trait::async_trait;
use deadpool_postgres::GenericClient;
use tokio_postgres::Row;

use super::PostgresStore;
use crate::builtin::engine::{
    ChatType, ForwardNode, ForwardView, HistoryMessage, ImageData, NewMessage, StreamInfo,
};
use crate::builtin::store::backend::MessageBackend;
use crate::builtin::store::forwards::walk;
use crate::builtin::store::images::sha256_hex;
use crate::builtin::store::time::now;
use crate::builtin::store::types::fresh_id;
use crate::builtin::store::{MessageImage, StoreError};

pub(super) const MESSAGE_COLUMNS: &str = "m.message_id, m.stream_id, m.sender_id, m.sender_name, m.is_bot, \
     m.text, m.reply_to, m.mentions, m.created_at, \
     (SELECT count(*) FROM message_images i WHERE i.message_id = m.message_id), \
     EXISTS (SELECT 1 FROM forward_messages f WHERE f.message_id = m.message_id)";

pub(super) fn message_from_row(row: &Row) -> HistoryMessage {
    let mentions: String = row.get(7);
    HistoryMessage {
        message_id: row.get(0),
        stream_id: row.get(1),
        sender_id: row.get(2),
        sender_name: row.get(3),
        is_bot: row.get(4),
        text: row.get(5),
        reply_to: row.get(6),
        // As in SQLite: a hand-edited bad value reads as no mentions.
        mentions: serde_json::from_str(&mentions).unwrap_or_default(),
        time: row.get(8),
        image_count: row.get::<_, i64>(9) as usize,
        is_forward: row.get(10),
    }
}

pub(super) const STREAM_COLUMNS: &str = "stream_id, platform, chat_type, target_id, name";

pub(super) fn stream_from_row(row: &Row) -> StreamInfo {
    let chat_type: Option<String> = row.get(2);
    StreamInfo {
        stream_id: row.get(0),
        platform: row.get(1),
        chat_type: chat_type.and_then(|kind| kind.parse::<ChatType>().ok()),
        target_id: row.get(3),
        name: row.get(4),
    }
}

async fn message_by_id(
    client: &impl GenericClient,
    message_id: &str,
) -> Result<Option<HistoryMessage>, StoreError> {
    let statement = client
        .prepare_cached(&format!(
            "SELECT {MESSAGE_COLUMNS} FROM messages m WHERE m.message_id = $1"
        ))
        .await?;
    let row = client.query_opt(&statement, &[&message_id]).await?;
    Ok(row.as_ref().map(message_from_row))
}

#[async_trait]
impl MessageBackend for PostgresStore {
    async fn upsert_stream(&self, info: StreamInfo) -> Result<(), StoreError> {
        if info.stream_id.trim().is_empty() {
            return Err(StoreError::Invalid("a stream needs a stream_id".into()));
        }
        let client = self.client().await?;
        let chat_type = info.chat_type.map(ChatType::as_str);
        // Fields left empty keep what an earlier upsert recorded. An existing stream is
        // updated first: an INSERT that ends in an update still draws an id from the sequence,
        // and MaiBot's `ChatSession.id` shows these ids, numbered without gaps as on SQLite.
        let updated = client
            .execute(
                "UPDATE streams SET
                   platform = CASE WHEN $2 = '' THEN platform ELSE $2 END,
                   chat_type = coalesce($3, chat_type),
                   target_id = CASE WHEN $4 = '' THEN target_id ELSE $4 END,
                   name = CASE WHEN $5 = '' THEN name ELSE $5 END
                 WHERE stream_id = $1",
                &[
                    &info.stream_id,
                    &info.platform,
                    &chat_type,
                    &info.target_id,
                    &info.name,
                ],
            )
            .await?;
        if updated > 0 {
            return Ok(());
        }
        // New, unless another host created it meanwhile.
        let statement = client
            .prepare_cached(
                "INSERT INTO streams (stream_id, platform, chat_type, target_id, name, created_at)
                 VALUES ($1, $2, $3, $4, $5, $6)
                 ON CONFLICT (stream_id) DO UPDATE SET
                   platform = CASE WHEN excluded.platform = '' THEN streams.platform
                                   ELSE excluded.platform END,
                   chat_type = coalesce(excluded.chat_type, streams.chat_type),
                   target_id = CASE WHEN excluded.target_id = '' THEN streams.target_id
                                    ELSE excluded.target_id END,
                   name = CASE WHEN excluded.name = '' THEN streams.name ELSE excluded.name END",
            )
            .await?;
        client
            .execute(
                &statement,
                &[
                    &info.stream_id,
                    &info.platform,
                    &chat_type,
                    &info.target_id,
                    &info.name,
                    &now(),
                ],
            )
            .await?;
        Ok(())
    }

    async fn stream(&self, stream_id: &str) -> Result<Option<StreamInfo>, StoreError> {
        let client = self.client().await?;
        let statement = client
            .prepare_cached(&format!(
                "SELECT {STREAM_COLUMNS} FROM streams WHERE stream_id = $1"
            ))
            .await?;
        let row = client.query_opt(&statement, &[&stream_id]).await?;
        Ok(row.as_ref().map(stream_from_row))
    }

    async fn find_stream(
        &self,
        platform: &str,
        chat_type: ChatType,
        target_id: &str,
    ) -> Result<Option<StreamInfo>, StoreError> {
        let client = self.client().await?;
        let statement = client
            .prepare_cached(&format!(
                "SELECT {STREAM_COLUMNS} FROM streams
                 WHERE platform = $1 AND chat_type = $2 AND target_id = $3
                 ORDER BY created_at, id LIMIT 1"
            ))
            .await?;
        let row = client
            .query_opt(&statement, &[&platform, &chat_type.as_str(), &target_id])
            .await?;
        Ok(row.as_ref().map(stream_from_row))
    }

    async fn append_message(&self, message: NewMessage) -> Result<HistoryMessage, StoreError> {
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
        let forward = if message.forward.is_empty() {
            None
        } else {
            Some(
                serde_json::to_string(&message.forward)
                    .map_err(|err| StoreError::Invalid(format!("forwarded messages: {err}")))?,
            )
        };
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        // Only a stream not yet known draws an id (see `upsert_stream`).
        tx.execute(
            "INSERT INTO streams (stream_id, created_at)
             SELECT $1, $2 WHERE NOT EXISTS (SELECT 1 FROM streams WHERE stream_id = $1)
             ON CONFLICT DO NOTHING",
            &[&message.stream_id, &now()],
        )
        .await?;
        let inserted = tx
            .execute(
                "INSERT INTO messages
                   (message_id, stream_id, sender_id, sender_name, is_bot, text, reply_to,
                    mentions, created_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                 ON CONFLICT (message_id) DO NOTHING",
                &[
                    &message_id,
                    &message.stream_id,
                    &message.sender_id,
                    &message.sender_name,
                    &message.is_bot,
                    &message.text,
                    &message.reply_to,
                    &mentions,
                    &message.time.unwrap_or_else(now),
                ],
            )
            .await?;
        if inserted == 0 {
            return Err(StoreError::MessageExists(message_id));
        }
        for (index, image) in message.images.iter().enumerate() {
            tx.execute(
                "INSERT INTO message_images (message_id, idx, mime_type, data, description, hash)
                 VALUES ($1, $2, $3, $4, $5, $6)",
                &[
                    &message_id,
                    &(index as i32),
                    &image.mime_type,
                    &image.data,
                    &image.description,
                    &sha256_hex(&image.data),
                ],
            )
            .await?;
        }
        if let Some(nodes) = forward {
            tx.execute(
                "INSERT INTO forward_messages (message_id, nodes) VALUES ($1, $2)
                 ON CONFLICT (message_id) DO UPDATE SET nodes = excluded.nodes",
                &[&message_id, &nodes],
            )
            .await?;
        }
        let stored = message_by_id(&tx, &message_id)
            .await?
            .ok_or_else(|| StoreError::Corrupted(format!("message {message_id} vanished")))?;
        tx.commit().await?;
        Ok(stored)
    }

    async fn message(&self, message_id: &str) -> Result<Option<HistoryMessage>, StoreError> {
        let client = self.client().await?;
        message_by_id(&client, message_id).await
    }

    async fn recent_messages(
        &self,
        stream_id: &str,
        limit: usize,
        exclude: &[String],
    ) -> Result<Vec<HistoryMessage>, StoreError> {
        let client = self.client().await?;
        let statement = client
            .prepare_cached(&format!(
                "SELECT {MESSAGE_COLUMNS} FROM messages m
                 WHERE m.stream_id = $1 AND NOT (m.message_id = ANY ($2))
                 ORDER BY m.seq DESC LIMIT $3"
            ))
            .await?;
        let rows = client
            .query(&statement, &[&stream_id, &exclude, &(limit as i64)])
            .await?;
        Ok(rows.iter().map(message_from_row).collect())
    }

    async fn message_image(
        &self,
        message_id: &str,
        index: usize,
    ) -> Result<Option<ImageData>, StoreError> {
        let Ok(index) = i32::try_from(index) else {
            return Ok(None);
        };
        let client = self.client().await?;
        let statement = client
            .prepare_cached(
                "SELECT mime_type, data, description FROM message_images
                 WHERE message_id = $1 AND idx = $2",
            )
            .await?;
        let row = client.query_opt(&statement, &[&message_id, &index]).await?;
        Ok(row.map(|row| ImageData {
            mime_type: row.get(0),
            data: row.get(1),
            description: row.get(2),
        }))
    }

    async fn message_images(
        &self,
        message_id: &str,
        with_data: bool,
    ) -> Result<Vec<MessageImage>, StoreError> {
        let client = self.client().await?;
        let statement = client
            .prepare_cached(
                "SELECT mime_type, hash, description, CASE WHEN $2::boolean THEN data END
                 FROM message_images WHERE message_id = $1 ORDER BY idx",
            )
            .await?;
        let rows = client.query(&statement, &[&message_id, &with_data]).await?;
        Ok(rows
            .iter()
            .map(|row| MessageImage {
                mime_type: row.get(0),
                hash: row.get(1),
                description: row.get(2),
                data: row.get::<_, Option<Vec<u8>>>(3).unwrap_or_default(),
            })
            .collect())
    }

    async fn take_unread(
        &self,
        session_id: &str,
        stream_id: &str,
        max: usize,
    ) -> Result<(usize, Vec<HistoryMessage>), StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        // Two hosts taking the same session's unread messages at once would both read them;
        // a lock on the pair makes the second wait and find them read, as SQLite's single
        // writer does.
        tx.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended(length($1) || ':' || $1 || $2, 0))",
            &[&session_id, &stream_id],
        )
        .await?;
        let last_seq: i64 = tx
            .query_opt(
                "SELECT last_seq FROM session_reads WHERE session_id = $1 AND stream_id = $2",
                &[&session_id, &stream_id],
            )
            .await?
            .map_or(0, |row| row.get(0));
        let counted = tx
            .query_one(
                "SELECT count(*), max(seq) FROM messages WHERE stream_id = $1 AND seq > $2",
                &[&stream_id, &last_seq],
            )
            .await?;
        let (total, newest): (i64, Option<i64>) = (counted.get(0), counted.get(1));
        let rows = tx
            .query(
                &format!(
                    "SELECT {MESSAGE_COLUMNS} FROM messages m
                     WHERE m.stream_id = $1 AND m.seq > $2 ORDER BY m.seq DESC LIMIT $3"
                ),
                &[&stream_id, &last_seq, &(max as i64)],
            )
            .await?;
        let mut messages: Vec<HistoryMessage> = rows.iter().map(message_from_row).collect();
        messages.reverse();
        if let Some(newest) = newest {
            tx.execute(
                "INSERT INTO session_reads (session_id, stream_id, last_seq) VALUES ($1, $2, $3)
                 ON CONFLICT (session_id, stream_id) DO UPDATE SET last_seq = excluded.last_seq",
                &[&session_id, &stream_id, &newest],
            )
            .await?;
        }
        tx.commit().await?;
        Ok((total as usize, messages))
    }

    async fn forward_view(
        &self,
        stream_id: &str,
        msg_id: &str,
        path: &[usize],
    ) -> Result<Option<ForwardView>, StoreError> {
        let client = self.client().await?;
        let row = client
            .query_opt(
                "SELECT f.nodes FROM forward_messages f
                 JOIN messages m ON m.message_id = f.message_id
                 WHERE f.message_id = $1 AND m.stream_id = $2",
                &[&msg_id, &stream_id],
            )
            .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let nodes: Vec<ForwardNode> = serde_json::from_str(row.get(0))
            .map_err(|err| StoreError::Corrupted(format!("forward of {msg_id}: {err}")))?;
        walk(msg_id, nodes, path).map(Some)
    }
}
