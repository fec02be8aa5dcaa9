//! The emoji library: images with a description and emotion tags. An emoji is kept either as
//! bytes or as a path to a file read when it is picked (so a seeded folder is not copied).

use async_trait::async_trait;
use rusqlite::{Connection, OptionalExtension, Row, params};

use super::SqliteStore;
use crate::builtin::engine::{Emoji, EmojiMatch, EmojiQuery};
use crate::builtin::store::backend::EmojiBackend;
use crate::builtin::store::fts::{match_query, segment};
use crate::builtin::store::images::{PreparedEmoji, StoredEmoji, load_emoji, prepare_emoji};
use crate::builtin::store::{NewEmoji, StoreError};

pub(super) fn upsert(conn: &mut Connection, emoji: &PreparedEmoji) -> Result<i64, StoreError> {
    let tx = conn.transaction()?;
    let id: i64 = tx.query_row(
        "INSERT INTO emojis (source, path, data, mime_type, description, emotions, hash)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
         ON CONFLICT (source) DO UPDATE SET
           path = excluded.path, data = excluded.data, mime_type = excluded.mime_type,
           description = excluded.description, emotions = excluded.emotions,
           hash = excluded.hash
         RETURNING id",
        params![
            emoji.source,
            emoji.path,
            emoji.data,
            emoji.mime_type,
            emoji.description,
            emoji.emotions_json,
            emoji.hash
        ],
        |row| row.get(0),
    )?;
    tx.execute("DELETE FROM emoji_emotions WHERE emoji_id = ?1", [id])?;
    for emotion in &emoji.emotions {
        tx.execute(
            "INSERT OR IGNORE INTO emoji_emotions (emoji_id, emotion) VALUES (?1, ?2)",
            params![id, emotion],
        )?;
    }
    tx.execute("DELETE FROM emojis_fts WHERE rowid = ?1", [id])?;
    tx.execute(
        "INSERT INTO emojis_fts (rowid, description, emotions) VALUES (?1, ?2, ?3)",
        params![
            id,
            segment(&emoji.description),
            segment(&emoji.emotions.join(" "))
        ],
    )?;
    tx.commit()?;
    Ok(id)
}

pub(super) const COLUMNS: &str = "e.id, e.path, e.data, e.mime_type, e.description, e.emotions";

pub(super) fn from_row(row: &Row<'_>) -> rusqlite::Result<StoredEmoji> {
    Ok(StoredEmoji {
        id: row.get(0)?,
        path: row.get(1)?,
        data: row.get(2)?,
        mime_type: row.get(3)?,
        description: row.get(4)?,
        emotions: row.get(5)?,
    })
}

pub(super) fn pick(conn: &Connection, query: &EmojiQuery) -> Result<Option<Emoji>, StoreError> {
    let wanted = |text: &Option<String>| {
        text.as_deref()
            .map(str::trim)
            .filter(|text| !text.is_empty())
            .map(str::to_owned)
    };
    let (emotion, description) = (wanted(&query.emotion), wanted(&query.description));
    if let Some(emotion) = &emotion {
        let row = conn
            .query_row(
                &format!(
                    "SELECT {COLUMNS} FROM emojis e JOIN emoji_emotions t ON t.emoji_id = e.id
                     WHERE t.emotion = ?1 ORDER BY random() LIMIT 1"
                ),
                [emotion],
                from_row,
            )
            .optional()?;
        if let Some(row) = row {
            return load_emoji(row, EmojiMatch::Emotion(emotion.clone())).map(Some);
        }
    }
    // No exact tag: full-text match of whatever was asked for against descriptions and tags.
    let text = [description.as_deref(), emotion.as_deref()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ");
    if let Some(fts) = match_query(&text) {
        let row = conn
            .query_row(
                &format!(
                    "SELECT {COLUMNS} FROM emojis_fts JOIN emojis e ON e.id = emojis_fts.rowid
                     WHERE emojis_fts MATCH ?1 ORDER BY bm25(emojis_fts), e.id LIMIT 1"
                ),
                [fts],
                from_row,
            )
            .optional()?;
        if let Some(row) = row {
            return load_emoji(row, EmojiMatch::Text(text)).map(Some);
        }
    }
    let row = conn
        .query_row(
            &format!("SELECT {COLUMNS} FROM emojis e ORDER BY random() LIMIT 1"),
            [],
            from_row,
        )
        .optional()?;
    row.map(|row| load_emoji(row, EmojiMatch::Random))
        .transpose()
}

#[async_trait]
impl EmojiBackend for SqliteStore {
    /// Adds an emoji, or replaces the one with the same source; returns its id.
    async fn add_emoji(&self, emoji: NewEmoji) -> Result<i64, StoreError> {
        // Hashing may read the emoji's file: blocking work, done in the blocking pool.
        self.call(move |conn| upsert(conn, &prepare_emoji(emoji)?))
            .await
    }

    /// Chooses an emoji: a random one tagged with the requested emotion; else the best
    /// full-text match of the description and emotion; else a random one. `None` when the
    /// library is empty.
    async fn pick_emoji(&self, query: EmojiQuery) -> Result<Option<Emoji>, StoreError> {
        self.call(move |conn| pick(conn, &query)).await
    }

    /// How many emojis the library holds.
    async fn emoji_count(&self) -> Result<usize, StoreError> {
        self.call(|conn| {
            let count: i64 = conn.query_row("SELECT count(*) FROM emojis", [], |row| row.get(0))?;
            Ok(count as usize)
        })
        .await
    }

    /// The whole emoji library with its images, in the order emojis were added.
    async fn all_emojis(&self) -> Result<Vec<Emoji>, StoreError> {
        self.call(|conn| {
            let mut statement =
                conn.prepare_cached(&format!("SELECT {COLUMNS} FROM emojis e ORDER BY e.id"))?;
            let rows = statement.query_map([], from_row)?;
            rows.map(|row| load_emoji(row?, EmojiMatch::Random))
                .collect::<Result<Vec<_>, _>>()
        })
        .await
    }

    /// Removes an emoji by id; whether it existed.
    async fn delete_emoji(&self, id: i64) -> Result<bool, StoreError> {
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
