//! Every row of the SQLite store out and in (`maitool store copy`).

use async_trait::async_trait;
use rusqlite::{Connection, Row, params};

use super::SqliteStore;
use crate::builtin::store::backend::SnapshotBackend;
use crate::builtin::store::fts::segment;
use crate::builtin::store::{
    EmojiRow, MemoryRow, MessageImageRow, MessageRow, PersonRow, StoreError, StoreSnapshot,
    StreamRow, ToolCallRow, ToolMediaRow,
};

fn rows<T>(
    conn: &Connection,
    sql: &str,
    read: impl FnMut(&Row<'_>) -> rusqlite::Result<T>,
) -> Result<Vec<T>, StoreError> {
    let mut statement = conn.prepare(sql)?;
    let rows = statement.query_map([], read)?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

fn dump(conn: &Connection) -> Result<StoreSnapshot, StoreError> {
    Ok(StoreSnapshot {
        streams: rows(
            conn,
            "SELECT rowid, stream_id, platform, chat_type, target_id, name, created_at
             FROM streams ORDER BY rowid",
            |r| {
                Ok(StreamRow {
                    id: r.get(0)?,
                    stream_id: r.get(1)?,
                    platform: r.get(2)?,
                    chat_type: r.get(3)?,
                    target_id: r.get(4)?,
                    name: r.get(5)?,
                    created_at: r.get(6)?,
                })
            },
        )?,
        messages: rows(
            conn,
            "SELECT seq, message_id, stream_id, sender_id, sender_name, is_bot, text, reply_to,
                    mentions, created_at
             FROM messages ORDER BY seq",
            |r| {
                Ok(MessageRow {
                    seq: r.get(0)?,
                    message_id: r.get(1)?,
                    stream_id: r.get(2)?,
                    sender_id: r.get(3)?,
                    sender_name: r.get(4)?,
                    is_bot: r.get(5)?,
                    text: r.get(6)?,
                    reply_to: r.get(7)?,
                    mentions: r.get(8)?,
                    created_at: r.get(9)?,
                })
            },
        )?,
        message_images: rows(
            conn,
            "SELECT rowid, message_id, idx, mime_type, data, description, hash
             FROM message_images ORDER BY rowid",
            |r| {
                Ok(MessageImageRow {
                    id: r.get(0)?,
                    message_id: r.get(1)?,
                    idx: r.get(2)?,
                    mime_type: r.get(3)?,
                    data: r.get(4)?,
                    description: r.get(5)?,
                    hash: r.get(6)?,
                })
            },
        )?,
        forward_messages: rows(
            conn,
            "SELECT message_id, nodes FROM forward_messages ORDER BY message_id",
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?,
        session_reads: rows(
            conn,
            "SELECT session_id, stream_id, last_seq FROM session_reads
             ORDER BY session_id, stream_id",
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )?,
        memories: rows(
            conn,
            "SELECT id, kind, title, content, person_id, chat_id, created_at
             FROM memories ORDER BY id",
            |r| {
                Ok(MemoryRow {
                    id: r.get(0)?,
                    kind: r.get(1)?,
                    title: r.get(2)?,
                    content: r.get(3)?,
                    person_id: r.get(4)?,
                    chat_id: r.get(5)?,
                    created_at: r.get(6)?,
                })
            },
        )?,
        persons: rows(
            conn,
            "SELECT rowid, person_id, person_name, nickname, platform, user_id, aliases, profile,
                    updated_at
             FROM persons ORDER BY rowid",
            |r| {
                Ok(PersonRow {
                    id: r.get(0)?,
                    person_id: r.get(1)?,
                    person_name: r.get(2)?,
                    nickname: r.get(3)?,
                    platform: r.get(4)?,
                    user_id: r.get(5)?,
                    aliases: r.get(6)?,
                    profile: r.get(7)?,
                    updated_at: r.get(8)?,
                })
            },
        )?,
        person_names: rows(
            conn,
            "SELECT person_id, name FROM person_names ORDER BY person_id, name",
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?,
        person_traits: rows(
            conn,
            "SELECT person_id, position, content FROM person_traits ORDER BY person_id, position",
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )?,
        emojis: rows(
            conn,
            "SELECT id, source, path, data, mime_type, description, emotions, hash
             FROM emojis ORDER BY id",
            |r| {
                Ok(EmojiRow {
                    id: r.get(0)?,
                    source: r.get(1)?,
                    path: r.get(2)?,
                    data: r.get(3)?,
                    mime_type: r.get(4)?,
                    description: r.get(5)?,
                    emotions: r.get(6)?,
                    hash: r.get(7)?,
                })
            },
        )?,
        emoji_emotions: rows(
            conn,
            "SELECT emoji_id, emotion FROM emoji_emotions ORDER BY emoji_id, emotion",
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?,
        tool_media: rows(
            conn,
            "SELECT session_id, media_id, content_type, mime_type, data, uri, name, created_at
             FROM tool_media ORDER BY session_id, media_id",
            |r| {
                Ok(ToolMediaRow {
                    session_id: r.get(0)?,
                    media_id: r.get(1)?,
                    content_type: r.get(2)?,
                    mime_type: r.get(3)?,
                    data: r.get(4)?,
                    uri: r.get(5)?,
                    name: r.get(6)?,
                    created_at: r.get(7)?,
                })
            },
        )?,
        tool_calls: rows(
            conn,
            "SELECT id, session_id, stream_id, call_id, tool_name, arguments, success, content,
                    error_message, created_at
             FROM tool_calls ORDER BY id",
            |r| {
                Ok(ToolCallRow {
                    id: r.get(0)?,
                    session_id: r.get(1)?,
                    stream_id: r.get(2)?,
                    call_id: r.get(3)?,
                    tool_name: r.get(4)?,
                    arguments: r.get(5)?,
                    success: r.get(6)?,
                    content: r.get(7)?,
                    error_message: r.get(8)?,
                    created_at: r.get(9)?,
                })
            },
        )?,
    })
}

fn load(conn: &mut Connection, s: &StoreSnapshot) -> Result<(), StoreError> {
    let tx = conn.transaction()?;
    for r in &s.streams {
        tx.execute(
            "INSERT OR IGNORE INTO streams
               (rowid, stream_id, platform, chat_type, target_id, name, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                r.id,
                r.stream_id,
                r.platform,
                r.chat_type,
                r.target_id,
                r.name,
                r.created_at
            ],
        )?;
    }
    for r in &s.messages {
        tx.execute(
            "INSERT OR IGNORE INTO messages (seq, message_id, stream_id, sender_id, sender_name,
                                              is_bot, text, reply_to, mentions, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                r.seq,
                r.message_id,
                r.stream_id,
                r.sender_id,
                r.sender_name,
                r.is_bot,
                r.text,
                r.reply_to,
                r.mentions,
                r.created_at
            ],
        )?;
    }
    for r in &s.message_images {
        tx.execute(
            "INSERT OR IGNORE INTO message_images
               (rowid, message_id, idx, mime_type, data, description, hash)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                r.id,
                r.message_id,
                r.idx,
                r.mime_type,
                r.data,
                r.description,
                r.hash
            ],
        )?;
    }
    for (message_id, nodes) in &s.forward_messages {
        tx.execute(
            "INSERT OR IGNORE INTO forward_messages (message_id, nodes) VALUES (?1, ?2)",
            params![message_id, nodes],
        )?;
    }
    for (session_id, stream_id, last_seq) in &s.session_reads {
        tx.execute(
            "INSERT OR IGNORE INTO session_reads (session_id, stream_id, last_seq)
             VALUES (?1, ?2, ?3)",
            params![session_id, stream_id, last_seq],
        )?;
    }
    for r in &s.memories {
        let inserted = tx.execute(
            "INSERT OR IGNORE INTO memories
               (id, kind, title, content, person_id, chat_id, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                r.id,
                r.kind,
                r.title,
                r.content,
                r.person_id,
                r.chat_id,
                r.created_at
            ],
        )?;
        if inserted > 0 {
            tx.execute(
                "INSERT INTO memories_fts (rowid, title, content) VALUES (?1, ?2, ?3)",
                params![r.id, segment(&r.title), segment(&r.content)],
            )?;
        }
    }
    for r in &s.persons {
        tx.execute(
            "INSERT OR IGNORE INTO persons (rowid, person_id, person_name, nickname, platform,
                                             user_id, aliases, profile, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                r.id,
                r.person_id,
                r.person_name,
                r.nickname,
                r.platform,
                r.user_id,
                r.aliases,
                r.profile,
                r.updated_at
            ],
        )?;
    }
    for (person_id, name) in &s.person_names {
        tx.execute(
            "INSERT OR IGNORE INTO person_names (person_id, name) VALUES (?1, ?2)",
            params![person_id, name],
        )?;
    }
    for (person_id, position, content) in &s.person_traits {
        tx.execute(
            "INSERT OR IGNORE INTO person_traits (person_id, position, content)
             VALUES (?1, ?2, ?3)",
            params![person_id, position, content],
        )?;
    }
    for r in &s.emojis {
        let inserted = tx.execute(
            "INSERT OR IGNORE INTO emojis
               (id, source, path, data, mime_type, description, emotions, hash)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                r.id,
                r.source,
                r.path,
                r.data,
                r.mime_type,
                r.description,
                r.emotions,
                r.hash
            ],
        )?;
        if inserted > 0 {
            let emotions: Vec<String> = serde_json::from_str(&r.emotions).unwrap_or_default();
            tx.execute(
                "INSERT INTO emojis_fts (rowid, description, emotions) VALUES (?1, ?2, ?3)",
                params![r.id, segment(&r.description), segment(&emotions.join(" "))],
            )?;
        }
    }
    for (emoji_id, emotion) in &s.emoji_emotions {
        tx.execute(
            "INSERT OR IGNORE INTO emoji_emotions (emoji_id, emotion) VALUES (?1, ?2)",
            params![emoji_id, emotion],
        )?;
    }
    for r in &s.tool_media {
        tx.execute(
            "INSERT OR IGNORE INTO tool_media (session_id, media_id, content_type, mime_type,
                                                data, uri, name, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                r.session_id,
                r.media_id,
                r.content_type,
                r.mime_type,
                r.data,
                r.uri,
                r.name,
                r.created_at
            ],
        )?;
    }
    for r in &s.tool_calls {
        tx.execute(
            "INSERT OR IGNORE INTO tool_calls (id, session_id, stream_id, call_id, tool_name,
                                                arguments, success, content, error_message,
                                                created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                r.id,
                r.session_id,
                r.stream_id,
                r.call_id,
                r.tool_name,
                r.arguments,
                r.success,
                r.content,
                r.error_message,
                r.created_at
            ],
        )?;
    }
    tx.commit()?;
    Ok(())
}

#[async_trait]
impl SnapshotBackend for SqliteStore {
    async fn dump(&self) -> Result<StoreSnapshot, StoreError> {
        self.call(|conn| dump(conn)).await
    }

    async fn load(&self, snapshot: StoreSnapshot) -> Result<(), StoreError> {
        self.call(move |conn| load(conn, &snapshot)).await
    }
}
