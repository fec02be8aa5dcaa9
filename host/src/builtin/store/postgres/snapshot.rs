//! Every row of the PostgreSQL store out and in (`maitool store copy`). Rows keep their ids;
//! each identity sequence is then moved past the largest id, so that rows added afterwards
//! get new ones.

use async_trait::async_trait;
use deadpool_postgres::Transaction;
use tokio_postgres::types::ToSql;

use super::PostgresStore;
use crate::builtin::store::backend::SnapshotBackend;
use crate::builtin::store::fts::words;
use crate::builtin::store::{
    EmojiRow, MemoryRow, MessageImageRow, MessageRow, PersonRow, StoreError, StoreSnapshot,
    StreamRow, ToolCallRow, ToolMediaRow,
};

/// Each table's identity column, for moving its sequence on after a load.
const IDENTITIES: &[(&str, &str)] = &[
    ("streams", "id"),
    ("messages", "seq"),
    ("message_images", "id"),
    ("memories", "id"),
    ("persons", "id"),
    ("emojis", "id"),
    ("tool_calls", "id"),
];

/// Inserts rows with one prepared statement; a row whose key is taken is skipped.
async fn insert_all<T>(
    tx: &Transaction<'_>,
    sql: &str,
    rows: &[T],
    params: impl Fn(&T) -> Vec<&(dyn ToSql + Sync)>,
) -> Result<(), StoreError> {
    let statement = tx.prepare(sql).await?;
    for row in rows {
        tx.execute(&statement, &params(row)).await?;
    }
    Ok(())
}

#[async_trait]
impl SnapshotBackend for PostgresStore {
    async fn dump(&self) -> Result<StoreSnapshot, StoreError> {
        let mut client = self.client().await?;
        // One snapshot of the whole database, whatever other hosts write meanwhile.
        let tx = client
            .build_transaction()
            .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()
            .await?;
        let q = |sql: &'static str| {
            let tx = &tx;
            async move { tx.query(sql, &[]).await }
        };
        let snapshot = StoreSnapshot {
            streams: q(
                "SELECT id, stream_id, platform, chat_type, target_id, name, created_at
                        FROM streams ORDER BY id",
            )
            .await?
            .iter()
            .map(|r| StreamRow {
                id: r.get(0),
                stream_id: r.get(1),
                platform: r.get(2),
                chat_type: r.get(3),
                target_id: r.get(4),
                name: r.get(5),
                created_at: r.get(6),
            })
            .collect(),
            messages: q(
                "SELECT seq, message_id, stream_id, sender_id, sender_name, is_bot, text,
                                reply_to, mentions, created_at
                         FROM messages ORDER BY seq",
            )
            .await?
            .iter()
            .map(|r| MessageRow {
                seq: r.get(0),
                message_id: r.get(1),
                stream_id: r.get(2),
                sender_id: r.get(3),
                sender_name: r.get(4),
                is_bot: r.get(5),
                text: r.get(6),
                reply_to: r.get(7),
                mentions: r.get(8),
                created_at: r.get(9),
            })
            .collect(),
            message_images: q(
                "SELECT id, message_id, idx::bigint, mime_type, data, description,
                                      hash
                               FROM message_images ORDER BY id",
            )
            .await?
            .iter()
            .map(|r| MessageImageRow {
                id: r.get(0),
                message_id: r.get(1),
                idx: r.get(2),
                mime_type: r.get(3),
                data: r.get(4),
                description: r.get(5),
                hash: r.get(6),
            })
            .collect(),
            forward_messages: q(
                "SELECT message_id, nodes FROM forward_messages ORDER BY message_id",
            )
            .await?
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect(),
            session_reads: q("SELECT session_id, stream_id, last_seq FROM session_reads
                              ORDER BY session_id, stream_id")
            .await?
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2)))
            .collect(),
            memories: q(
                "SELECT id, kind, title, content, person_id, chat_id, created_at
                         FROM memories ORDER BY id",
            )
            .await?
            .iter()
            .map(|r| MemoryRow {
                id: r.get(0),
                kind: r.get(1),
                title: r.get(2),
                content: r.get(3),
                person_id: r.get(4),
                chat_id: r.get(5),
                created_at: r.get(6),
            })
            .collect(),
            persons: q(
                "SELECT id, person_id, person_name, nickname, platform, user_id, aliases,
                               profile, updated_at
                        FROM persons ORDER BY id",
            )
            .await?
            .iter()
            .map(|r| PersonRow {
                id: r.get(0),
                person_id: r.get(1),
                person_name: r.get(2),
                nickname: r.get(3),
                platform: r.get(4),
                user_id: r.get(5),
                aliases: r.get(6),
                profile: r.get(7),
                updated_at: r.get(8),
            })
            .collect(),
            person_names: q("SELECT person_id, name FROM person_names
                             ORDER BY person_id, name COLLATE \"C\"")
            .await?
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect(),
            person_traits: q(
                "SELECT person_id, position::bigint, content FROM person_traits
                              ORDER BY person_id, position",
            )
            .await?
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2)))
            .collect(),
            emojis: q(
                "SELECT id, source, path, data, mime_type, description, emotions, hash
                       FROM emojis ORDER BY id",
            )
            .await?
            .iter()
            .map(|r| EmojiRow {
                id: r.get(0),
                source: r.get(1),
                path: r.get(2),
                data: r.get(3),
                mime_type: r.get(4),
                description: r.get(5),
                emotions: r.get(6),
                hash: r.get(7),
            })
            .collect(),
            emoji_emotions: q("SELECT emoji_id, emotion FROM emoji_emotions
                               ORDER BY emoji_id, emotion COLLATE \"C\"")
            .await?
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect(),
            tool_media: q(
                "SELECT session_id, media_id, content_type, mime_type, data, uri, name,
                                  created_at
                           FROM tool_media ORDER BY session_id, media_id",
            )
            .await?
            .iter()
            .map(|r| ToolMediaRow {
                session_id: r.get(0),
                media_id: r.get(1),
                content_type: r.get(2),
                mime_type: r.get(3),
                data: r.get(4),
                uri: r.get(5),
                name: r.get(6),
                created_at: r.get(7),
            })
            .collect(),
            tool_calls: q(
                "SELECT id, session_id, stream_id, call_id, tool_name, arguments,
                                  success, content, error_message, created_at
                           FROM tool_calls ORDER BY id",
            )
            .await?
            .iter()
            .map(|r| ToolCallRow {
                id: r.get(0),
                session_id: r.get(1),
                stream_id: r.get(2),
                call_id: r.get(3),
                tool_name: r.get(4),
                arguments: r.get(5),
                success: r.get(6),
                content: r.get(7),
                error_message: r.get(8),
                created_at: r.get(9),
            })
            .collect(),
        };
        tx.commit().await?;
        Ok(snapshot)
    }

    async fn load(&self, s: StoreSnapshot) -> Result<(), StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        insert_all(
            &tx,
            "INSERT INTO streams (id, stream_id, platform, chat_type, target_id, name, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING",
            &s.streams,
            |r| {
                vec![
                    &r.id,
                    &r.stream_id,
                    &r.platform,
                    &r.chat_type,
                    &r.target_id,
                    &r.name,
                    &r.created_at,
                ]
            },
        )
        .await?;
        insert_all(
            &tx,
            "INSERT INTO messages (seq, message_id, stream_id, sender_id, sender_name, is_bot,
                                   text, reply_to, mentions, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING",
            &s.messages,
            |r| {
                vec![
                    &r.seq,
                    &r.message_id,
                    &r.stream_id,
                    &r.sender_id,
                    &r.sender_name,
                    &r.is_bot,
                    &r.text,
                    &r.reply_to,
                    &r.mentions,
                    &r.created_at,
                ]
            },
        )
        .await?;
        insert_all(
            &tx,
            "INSERT INTO message_images (id, message_id, idx, mime_type, data, description, hash)
             VALUES ($1, $2, $3::bigint, $4, $5, $6, $7) ON CONFLICT DO NOTHING",
            &s.message_images,
            |r| {
                vec![
                    &r.id,
                    &r.message_id,
                    &r.idx,
                    &r.mime_type,
                    &r.data,
                    &r.description,
                    &r.hash,
                ]
            },
        )
        .await?;
        insert_all(
            &tx,
            "INSERT INTO forward_messages (message_id, nodes) VALUES ($1, $2)
             ON CONFLICT DO NOTHING",
            &s.forward_messages,
            |r| vec![&r.0, &r.1],
        )
        .await?;
        insert_all(
            &tx,
            "INSERT INTO session_reads (session_id, stream_id, last_seq) VALUES ($1, $2, $3)
             ON CONFLICT DO NOTHING",
            &s.session_reads,
            |r| vec![&r.0, &r.1, &r.2],
        )
        .await?;
        let memory_words: Vec<(String, String)> = s
            .memories
            .iter()
            .map(|r| (words(&r.title), words(&r.content)))
            .collect();
        let memories: Vec<(&MemoryRow, &(String, String))> =
            s.memories.iter().zip(&memory_words).collect();
        insert_all(
            &tx,
            "INSERT INTO memories (id, kind, title, content, person_id, chat_id, created_at,
                                   title_words, content_words)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING",
            &memories,
            |(r, (title, content))| {
                vec![
                    &r.id,
                    &r.kind,
                    &r.title,
                    &r.content,
                    &r.person_id,
                    &r.chat_id,
                    &r.created_at,
                    title,
                    content,
                ]
            },
        )
        .await?;
        insert_all(
            &tx,
            "INSERT INTO persons (id, person_id, person_name, nickname, platform, user_id, aliases,
                                  profile, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING",
            &s.persons,
            |r| {
                vec![
                    &r.id,
                    &r.person_id,
                    &r.person_name,
                    &r.nickname,
                    &r.platform,
                    &r.user_id,
                    &r.aliases,
                    &r.profile,
                    &r.updated_at,
                ]
            },
        )
        .await?;
        insert_all(
            &tx,
            "INSERT INTO person_names (person_id, name) VALUES ($1, $2) ON CONFLICT DO NOTHING",
            &s.person_names,
            |r| vec![&r.0, &r.1],
        )
        .await?;
        insert_all(
            &tx,
            "INSERT INTO person_traits (person_id, position, content)
             VALUES ($1, $2::bigint, $3) ON CONFLICT DO NOTHING",
            &s.person_traits,
            |r| vec![&r.0, &r.1, &r.2],
        )
        .await?;
        let emoji_words: Vec<(String, String)> = s
            .emojis
            .iter()
            .map(|r| {
                let emotions: Vec<String> = serde_json::from_str(&r.emotions).unwrap_or_default();
                (words(&r.description), words(&emotions.join(" ")))
            })
            .collect();
        let emojis: Vec<(&EmojiRow, &(String, String))> =
            s.emojis.iter().zip(&emoji_words).collect();
        insert_all(
            &tx,
            "INSERT INTO emojis (id, source, path, data, mime_type, description, emotions, hash,
                                 description_words, emotion_words)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING",
            &emojis,
            |(r, (description, emotions))| {
                vec![
                    &r.id,
                    &r.source,
                    &r.path,
                    &r.data,
                    &r.mime_type,
                    &r.description,
                    &r.emotions,
                    &r.hash,
                    description,
                    emotions,
                ]
            },
        )
        .await?;
        insert_all(
            &tx,
            "INSERT INTO emoji_emotions (emoji_id, emotion) VALUES ($1, $2) ON CONFLICT DO NOTHING",
            &s.emoji_emotions,
            |r| vec![&r.0, &r.1],
        )
        .await?;
        insert_all(
            &tx,
            "INSERT INTO tool_media (session_id, media_id, content_type, mime_type, data, uri,
                                     name, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING",
            &s.tool_media,
            |r| {
                vec![
                    &r.session_id,
                    &r.media_id,
                    &r.content_type,
                    &r.mime_type,
                    &r.data,
                    &r.uri,
                    &r.name,
                    &r.created_at,
                ]
            },
        )
        .await?;
        insert_all(
            &tx,
            "INSERT INTO tool_calls (id, session_id, stream_id, call_id, tool_name, arguments,
                                     success, content, error_message, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING",
            &s.tool_calls,
            |r| {
                vec![
                    &r.id,
                    &r.session_id,
                    &r.stream_id,
                    &r.call_id,
                    &r.tool_name,
                    &r.arguments,
                    &r.success,
                    &r.content,
                    &r.error_message,
                    &r.created_at,
                ]
            },
        )
        .await?;
        for (table, column) in IDENTITIES {
            tx.execute(
                &format!(
                    "SELECT setval(pg_get_serial_sequence('{table}', '{column}'),
                                   coalesce(max({column}), 0) + 1, false)
                     FROM {table}"
                ),
                &[],
            )
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }
}
