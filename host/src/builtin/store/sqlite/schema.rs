//! The schema and its migrations, tracked with `PRAGMA user_version`.
//!
//! The full-text tables hold *segmented* text (see [`super::fts`]), written by the store in the
//! same transaction as the row they index; their rowid is the row's id.

use rusqlite::{Connection, TransactionBehavior};

use crate::builtin::store::StoreError;
use crate::builtin::store::images::{emoji_hash, sha256_hex};

/// Migrations in order; `user_version` is the number applied.
const MIGRATIONS: &[&str] = &[
    r#"
CREATE TABLE streams (
    stream_id  TEXT PRIMARY KEY,
    platform   TEXT NOT NULL DEFAULT '',
    chat_type  TEXT CHECK (chat_type IN ('group', 'private')),
    target_id  TEXT NOT NULL DEFAULT '',
    name       TEXT NOT NULL DEFAULT '',
    created_at REAL NOT NULL
);
CREATE INDEX streams_address ON streams (platform, chat_type, target_id);

CREATE TABLE messages (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id  TEXT NOT NULL UNIQUE,
    stream_id   TEXT NOT NULL REFERENCES streams (stream_id),
    sender_id   TEXT NOT NULL DEFAULT '',
    sender_name TEXT NOT NULL DEFAULT '',
    is_bot      INTEGER NOT NULL DEFAULT 0,
    text        TEXT NOT NULL DEFAULT '',
    reply_to    TEXT,
    mentions    TEXT NOT NULL DEFAULT '[]',
    created_at  REAL NOT NULL
);
CREATE INDEX messages_stream ON messages (stream_id, seq);

CREATE TABLE message_images (
    message_id  TEXT NOT NULL REFERENCES messages (message_id) ON DELETE CASCADE,
    idx         INTEGER NOT NULL,
    mime_type   TEXT NOT NULL,
    data        BLOB NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (message_id, idx)
);

CREATE TABLE forward_messages (
    message_id TEXT PRIMARY KEY REFERENCES messages (message_id) ON DELETE CASCADE,
    nodes      TEXT NOT NULL
);

CREATE TABLE session_reads (
    session_id TEXT NOT NULL,
    stream_id  TEXT NOT NULL,
    last_seq   INTEGER NOT NULL,
    PRIMARY KEY (session_id, stream_id)
);

CREATE TABLE memories (
    id         INTEGER PRIMARY KEY,
    kind       TEXT NOT NULL DEFAULT 'fact',
    title      TEXT NOT NULL DEFAULT '',
    content    TEXT NOT NULL,
    person_id  TEXT NOT NULL DEFAULT '',
    chat_id    TEXT NOT NULL DEFAULT '',
    created_at REAL NOT NULL,
    UNIQUE (kind, content, person_id, chat_id)
);
CREATE INDEX memories_time ON memories (created_at);
CREATE INDEX memories_person ON memories (person_id);
CREATE VIRTUAL TABLE memories_fts USING fts5 (
    title, content, tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TABLE persons (
    person_id   TEXT PRIMARY KEY,
    person_name TEXT NOT NULL DEFAULT '',
    nickname    TEXT NOT NULL DEFAULT '',
    platform    TEXT NOT NULL DEFAULT '',
    user_id     TEXT NOT NULL DEFAULT '',
    aliases     TEXT NOT NULL DEFAULT '[]',
    profile     TEXT NOT NULL DEFAULT '',
    updated_at  REAL NOT NULL
);
CREATE INDEX persons_account ON persons (platform, user_id);

CREATE TABLE person_names (
    person_id TEXT NOT NULL REFERENCES persons (person_id) ON DELETE CASCADE,
    name      TEXT NOT NULL COLLATE NOCASE,
    PRIMARY KEY (person_id, name)
);
CREATE INDEX person_names_name ON person_names (name);

CREATE TABLE person_traits (
    person_id TEXT NOT NULL REFERENCES persons (person_id) ON DELETE CASCADE,
    position  INTEGER NOT NULL,
    content   TEXT NOT NULL,
    PRIMARY KEY (person_id, position)
);

CREATE TABLE emojis (
    id          INTEGER PRIMARY KEY,
    source      TEXT NOT NULL UNIQUE,
    path        TEXT,
    data        BLOB,
    mime_type   TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    emotions    TEXT NOT NULL DEFAULT '[]',
    CHECK (path IS NOT NULL OR data IS NOT NULL)
);
CREATE TABLE emoji_emotions (
    emoji_id INTEGER NOT NULL REFERENCES emojis (id) ON DELETE CASCADE,
    emotion  TEXT NOT NULL COLLATE NOCASE,
    PRIMARY KEY (emoji_id, emotion)
);
CREATE INDEX emoji_emotions_emotion ON emoji_emotions (emotion);
CREATE VIRTUAL TABLE emojis_fts USING fts5 (
    description, emotions, tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TABLE tool_media (
    session_id   TEXT NOT NULL,
    media_id     TEXT NOT NULL,
    content_type TEXT NOT NULL,
    mime_type    TEXT NOT NULL DEFAULT '',
    data         BLOB,
    uri          TEXT NOT NULL DEFAULT '',
    name         TEXT NOT NULL DEFAULT '',
    created_at   REAL NOT NULL,
    PRIMARY KEY (session_id, media_id)
);

CREATE TABLE tool_calls (
    id            INTEGER PRIMARY KEY,
    session_id    TEXT NOT NULL,
    stream_id     TEXT NOT NULL,
    call_id       TEXT NOT NULL,
    tool_name     TEXT NOT NULL,
    arguments     TEXT NOT NULL,
    success       INTEGER NOT NULL,
    content       TEXT NOT NULL,
    error_message TEXT NOT NULL,
    created_at    REAL NOT NULL
);
CREATE INDEX tool_calls_session ON tool_calls (session_id, id);
"#,
    // Images are named by the SHA-256 of their bytes, as MaiBot names them (`hash` of an image
    // segment, `image_hash` of its `Images` table); rows from before are hashed by
    // `hash_images` right after.
    r#"
ALTER TABLE message_images ADD COLUMN hash TEXT NOT NULL DEFAULT '';
ALTER TABLE emojis ADD COLUMN hash TEXT NOT NULL DEFAULT '';
CREATE INDEX message_images_hash ON message_images (hash);
CREATE INDEX emojis_hash ON emojis (hash);
"#,
];

/// Applies the migrations this database lacks. A database newer than this build is refused
/// rather than misread.
pub(super) fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    conn.pragma_update(None, "foreign_keys", true)?;
    // The version is read under the write lock: two processes opening a new file at once
    // would otherwise both see version 0 and the second would fail with "table already
    // exists".
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let applied: usize = tx.pragma_query_value(None, "user_version", |row| row.get(0))?;
    if applied > MIGRATIONS.len() {
        return Err(StoreError::Invalid(format!(
            "the store's schema version {applied} is newer than this maitool supports ({})",
            MIGRATIONS.len()
        )));
    }
    for (position, migration) in MIGRATIONS.iter().enumerate().skip(applied) {
        tx.execute_batch(migration)?;
        tx.pragma_update(None, "user_version", position + 1)?;
    }
    if applied < 2 {
        hash_images(&tx)?;
    }
    tx.commit()?;
    Ok(())
}

/// The SHA-256 of every image stored before images carried one. An emoji kept as a file
/// whose file is gone stays unhashed (it cannot be sent either).
fn hash_images(conn: &Connection) -> Result<(), StoreError> {
    let images: Vec<(i64, Vec<u8>)> = conn
        .prepare("SELECT rowid, data FROM message_images WHERE hash = ''")?
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<Result<_, _>>()?;
    for (rowid, data) in images {
        conn.execute(
            "UPDATE message_images SET hash = ?1 WHERE rowid = ?2",
            rusqlite::params![sha256_hex(&data), rowid],
        )?;
    }
    let emojis: Vec<(i64, Option<Vec<u8>>, Option<String>)> = conn
        .prepare("SELECT id, data, path FROM emojis WHERE hash = ''")?
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
        .collect::<Result<_, _>>()?;
    for (id, data, path) in emojis {
        let hash = emoji_hash(data.as_deref(), path.as_deref().map(std::path::Path::new));
        conn.execute(
            "UPDATE emojis SET hash = ?1 WHERE id = ?2",
            rusqlite::params![hash, id],
        )?;
    }
    Ok(())
}
