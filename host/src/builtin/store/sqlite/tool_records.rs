//! What the tool-call executor leaves behind: media items of tool results, addressable by
//! `tool_result:<call_id>:<n>`, and a log of executed calls.

use async_trait::async_trait;
use maitool_protocol::{BinaryData, ContentType, ToolContentItem};
use rusqlite::{OptionalExtension, params};

use super::SqliteStore;
use crate::builtin::engine::{ToolMedia, ToolResultRecord};
use crate::builtin::store::StoreError;
use crate::builtin::store::backend::ToolRecordBackend;
use crate::builtin::store::time::now;

#[async_trait]
impl ToolRecordBackend for SqliteStore {
    /// Keeps media items of a session's tool results; a repeated id replaces the item.
    async fn put_tool_media(
        &self,
        session_id: &str,
        media: Vec<ToolMedia>,
    ) -> Result<(), StoreError> {
        let session_id = session_id.to_owned();
        self.call(move |conn| {
            let tx = conn.transaction()?;
            for media in &media {
                let item = &media.item;
                tx.execute(
                    "INSERT INTO tool_media
                       (session_id, media_id, content_type, mime_type, data, uri, name, created_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                     ON CONFLICT (session_id, media_id) DO UPDATE SET
                       content_type = excluded.content_type, mime_type = excluded.mime_type,
                       data = excluded.data, uri = excluded.uri, name = excluded.name,
                       created_at = excluded.created_at",
                    params![
                        session_id,
                        media.media_id,
                        item.content_type.as_str(),
                        item.mime_type,
                        (!item.data.is_empty()).then_some(&item.data.0),
                        item.uri,
                        item.name,
                        now()
                    ],
                )?;
            }
            tx.commit()?;
            Ok(())
        })
        .await
    }

    /// A media item kept by [`put_tool_media`](Self::put_tool_media).
    async fn tool_media(
        &self,
        session_id: &str,
        media_id: &str,
    ) -> Result<Option<ToolContentItem>, StoreError> {
        let (session_id, media_id) = (session_id.to_owned(), media_id.to_owned());
        self.call(move |conn| {
            Ok(conn
                .query_row(
                    "SELECT content_type, mime_type, data, uri, name FROM tool_media
                     WHERE session_id = ?1 AND media_id = ?2",
                    params![session_id, media_id],
                    |row| {
                        let kind: String = row.get(0)?;
                        let content_type = serde_json::from_value(serde_json::Value::String(kind))
                            .unwrap_or(ContentType::Unknown);
                        Ok(ToolContentItem {
                            content_type,
                            mime_type: row.get(1)?,
                            data: BinaryData(row.get::<_, Option<Vec<u8>>>(2)?.unwrap_or_default()),
                            uri: row.get(3)?,
                            name: row.get(4)?,
                            ..ToolContentItem::default()
                        })
                    },
                )
                .optional()?)
        })
        .await
    }

    /// Logs one executed tool call.
    async fn record_tool_call(&self, record: ToolResultRecord) -> Result<(), StoreError> {
        self.call(move |conn| {
            conn.execute(
                "INSERT INTO tool_calls (session_id, stream_id, call_id, tool_name, arguments,
                                         success, content, error_message, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                params![
                    record.session_id,
                    record.stream_id,
                    record.call_id,
                    record.tool_name,
                    serde_json::Value::Object(record.arguments).to_string(),
                    record.success,
                    record.content,
                    record.error_message,
                    now()
                ],
            )?;
            Ok(())
        })
        .await
    }

    /// The logged tool calls of a session, oldest first.
    async fn tool_calls(&self, session_id: &str) -> Result<Vec<ToolResultRecord>, StoreError> {
        let session_id = session_id.to_owned();
        self.call(move |conn| {
            let mut statement = conn.prepare_cached(
                "SELECT session_id, stream_id, call_id, tool_name, arguments, success, content,
                        error_message
                 FROM tool_calls WHERE session_id = ?1 ORDER BY id",
            )?;
            let rows = statement.query_map([session_id], |row| {
                Ok((
                    ToolResultRecord {
                        session_id: row.get(0)?,
                        stream_id: row.get(1)?,
                        call_id: row.get(2)?,
                        tool_name: row.get(3)?,
                        success: row.get(5)?,
                        content: row.get(6)?,
                        error_message: row.get(7)?,
                        ..ToolResultRecord::default()
                    },
                    row.get::<_, String>(4)?,
                ))
            })?;
            let mut records = Vec::new();
            for row in rows {
                let (mut record, arguments) = row?;
                record.arguments = serde_json::from_str(&arguments).map_err(|err| {
                    StoreError::Corrupted(format!("arguments of call {}: {err}", record.call_id))
                })?;
                records.push(record);
            }
            Ok(records)
        })
        .await
    }
}
