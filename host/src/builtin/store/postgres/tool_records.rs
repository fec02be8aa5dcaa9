//! Tool-result media and the log of executed calls in PostgreSQL.

use async_trait::async_trait;
use maitool_protocol::{BinaryData, ContentType, ToolContentItem};

use super::PostgresStore;
use crate::builtin::engine::{ToolMedia, ToolResultRecord};
use crate::builtin::store::StoreError;
use crate::builtin::store::backend::ToolRecordBackend;
use crate::builtin::store::time::now;

#[async_trait]
impl ToolRecordBackend for PostgresStore {
    async fn put_tool_media(
        &self,
        session_id: &str,
        media: Vec<ToolMedia>,
    ) -> Result<(), StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        let statement = tx
            .prepare(
                "INSERT INTO tool_media
                   (session_id, media_id, content_type, mime_type, data, uri, name, created_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                 ON CONFLICT (session_id, media_id) DO UPDATE SET
                   content_type = excluded.content_type, mime_type = excluded.mime_type,
                   data = excluded.data, uri = excluded.uri, name = excluded.name,
                   created_at = excluded.created_at",
            )
            .await?;
        for media in &media {
            let item = &media.item;
            tx.execute(
                &statement,
                &[
                    &session_id,
                    &media.media_id,
                    &item.content_type.as_str(),
                    &item.mime_type,
                    &(!item.data.is_empty()).then_some(&item.data.0),
                    &item.uri,
                    &item.name,
                    &now(),
                ],
            )
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn tool_media(
        &self,
        session_id: &str,
        media_id: &str,
    ) -> Result<Option<ToolContentItem>, StoreError> {
        let client = self.client().await?;
        let row = client
            .query_opt(
                "SELECT content_type, mime_type, data, uri, name FROM tool_media
                 WHERE session_id = $1 AND media_id = $2",
                &[&session_id, &media_id],
            )
            .await?;
        Ok(row.map(|row| {
            let kind: String = row.get(0);
            ToolContentItem {
                content_type: serde_json::from_value(serde_json::Value::String(kind))
                    .unwrap_or(ContentType::Unknown),
                mime_type: row.get(1),
                data: BinaryData(row.get::<_, Option<Vec<u8>>>(2).unwrap_or_default()),
                uri: row.get(3),
                name: row.get(4),
                ..ToolContentItem::default()
            }
        }))
    }

    async fn record_tool_call(&self, record: ToolResultRecord) -> Result<(), StoreError> {
        let client = self.client().await?;
        client
            .execute(
                "INSERT INTO tool_calls (session_id, stream_id, call_id, tool_name, arguments,
                                         success, content, error_message, created_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                &[
                    &record.session_id,
                    &record.stream_id,
                    &record.call_id,
                    &record.tool_name,
                    &serde_json::Value::Object(record.arguments).to_string(),
                    &record.success,
                    &record.content,
                    &record.error_message,
                    &now(),
                ],
            )
            .await?;
        Ok(())
    }

    async fn tool_calls(&self, session_id: &str) -> Result<Vec<ToolResultRecord>, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(
                "SELECT session_id, stream_id, call_id, tool_name, arguments, success, content,
                        error_message
                 FROM tool_calls WHERE session_id = $1 ORDER BY id",
                &[&session_id],
            )
            .await?;
        rows.iter()
            .map(|row| {
                let call_id: String = row.get(2);
                let arguments = serde_json::from_str(row.get(4)).map_err(|err| {
                    StoreError::Corrupted(format!("arguments of call {call_id}: {err}"))
                })?;
                Ok(ToolResultRecord {
                    session_id: row.get(0),
                    stream_id: row.get(1),
                    call_id,
                    tool_name: row.get(3),
                    arguments,
                    success: row.get(5),
                    content: row.get(6),
                    error_message: row.get(7),
                })
            })
            .collect()
    }
}
