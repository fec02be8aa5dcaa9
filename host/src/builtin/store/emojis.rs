//! The emoji library: images with a description and emotion tags. An emoji is kept either as
//! bytes or as a path to a file read when it is picked (so a seeded folder is not copied).

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, Row, params};

use super::fts::{match_query, segment};
use super::{Store, StoreError};
use crate::builtin::engine::{Emoji, EmojiMatch, EmojiQuery};

/// An emoji to add to the library.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NewEmoji {
    /// Unique key: re-adding the same source replaces the entry (a file path, or any name).
    pub source: String,
    /// A file to read when the emoji is picked.
    pub path: Option<PathBuf>,
    /// The image itself, when not read from `path`.
    pub data: Option<Vec<u8>>,
    /// MIME type; sniffed from the bytes or the file extension when empty.
    pub mime_type: String,
    /// What it shows.
    pub description: String,
    /// Emotion tags.
    pub emotions: Vec<String>,
}

/// The image MIME type of `bytes` by their signature, else by the file extension.
pub(crate) fn image_mime(bytes: Option<&[u8]>, path: Option<&Path>) -> Option<&'static str> {
    if let Some(bytes) = bytes {
        let by_magic = match bytes {
            [0x89, b'P', b'N', b'G', ..] => Some("image/png"),
            [0xFF, 0xD8, 0xFF, ..] => Some("image/jpeg"),
            [b'G', b'I', b'F', b'8', ..] => Some("image/gif"),
            [
                b'R',
                b'I',
                b'F',
                b'F',
                _,
                _,
                _,
                _,
                b'W',
                b'E',
                b'B',
                b'P',
                ..,
            ] => Some("image/webp"),
            [b'B', b'M', ..] => Some("image/bmp"),
            _ => None,
        };
        if by_magic.is_some() {
            return by_magic;
        }
    }
    let extension = path?.extension()?.to_str()?.to_ascii_lowercase();
    match extension.as_str() {
        "png" => Some("image/png"),
        "jpg" | "jpeg" => Some("image/jpeg"),
        "gif" => Some("image/gif"),
        "webp" => Some("image/webp"),
        "bmp" => Some("image/bmp"),
        _ => None,
    }
}

pub(super) fn upsert(conn: &mut Connection, emoji: &NewEmoji) -> Result<i64, StoreError> {
    if emoji.source.trim().is_empty() {
        return Err(StoreError::Invalid("an emoji needs a source".into()));
    }
    if emoji.path.is_none() && emoji.data.as_ref().is_none_or(|data| data.is_empty()) {
        return Err(StoreError::Invalid(format!(
            "emoji {} has neither a file nor bytes",
            emoji.source
        )));
    }
    let mime_type = if emoji.mime_type.is_empty() {
        image_mime(emoji.data.as_deref(), emoji.path.as_deref())
            .ok_or_else(|| {
                StoreError::Invalid(format!(
                    "emoji {}: unknown image format (png, jpeg, gif, webp or bmp expected)",
                    emoji.source
                ))
            })?
            .to_owned()
    } else {
        emoji.mime_type.clone()
    };
    let emotions: Vec<String> = emoji
        .emotions
        .iter()
        .map(|emotion| emotion.trim().to_owned())
        .filter(|emotion| !emotion.is_empty())
        .collect();
    let emotions_json = serde_json::to_string(&emotions)
        .map_err(|err| StoreError::Invalid(format!("emotions: {err}")))?;
    let path = emoji.path.as_ref().map(|path| path.display().to_string());
    let hash = super::schema::emoji_hash(emoji.data.as_deref(), emoji.path.as_deref());
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
            emoji.source.trim(),
            path,
            emoji.data,
            mime_type,
            emoji.description.trim(),
            emotions_json,
            hash
        ],
        |row| row.get(0),
    )?;
    tx.execute("DELETE FROM emoji_emotions WHERE emoji_id = ?1", [id])?;
    for emotion in &emotions {
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
            segment(emoji.description.trim()),
            segment(&emotions.join(" "))
        ],
    )?;
    tx.commit()?;
    Ok(id)
}

pub(super) struct EmojiRow {
    id: i64,
    path: Option<String>,
    data: Option<Vec<u8>>,
    mime_type: String,
    description: String,
    emotions: String,
}

pub(super) const COLUMNS: &str = "e.id, e.path, e.data, e.mime_type, e.description, e.emotions";

pub(super) fn from_row(row: &Row<'_>) -> rusqlite::Result<EmojiRow> {
    Ok(EmojiRow {
        id: row.get(0)?,
        path: row.get(1)?,
        data: row.get(2)?,
        mime_type: row.get(3)?,
        description: row.get(4)?,
        emotions: row.get(5)?,
    })
}

pub(super) fn load(row: EmojiRow, matched: EmojiMatch) -> Result<Emoji, StoreError> {
    let data = match (row.data, row.path) {
        (Some(data), _) if !data.is_empty() => data,
        (_, Some(path)) => std::fs::read(&path).map_err(|source| StoreError::Io {
            path: PathBuf::from(&path),
            source,
        })?,
        _ => {
            return Err(StoreError::Corrupted(format!(
                "emoji {} has no image",
                row.id
            )));
        }
    };
    Ok(Emoji {
        id: row.id,
        description: row.description,
        emotions: serde_json::from_str(&row.emotions)
            .map_err(|err| StoreError::Corrupted(format!("emotions of emoji {}: {err}", row.id)))?,
        mime_type: row.mime_type,
        data,
        matched,
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
            return load(row, EmojiMatch::Emotion(emotion.clone())).map(Some);
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
            return load(row, EmojiMatch::Text(text)).map(Some);
        }
    }
    let row = conn
        .query_row(
            &format!("SELECT {COLUMNS} FROM emojis e ORDER BY random() LIMIT 1"),
            [],
            from_row,
        )
        .optional()?;
    row.map(|row| load(row, EmojiMatch::Random)).transpose()
}

impl Store {
    /// Adds an emoji, or replaces the one with the same source; returns its id.
    pub async fn add_emoji(&self, emoji: NewEmoji) -> Result<i64, StoreError> {
        self.call(move |conn| upsert(conn, &emoji)).await
    }

    /// Chooses an emoji: a random one tagged with the requested emotion; else the best
    /// full-text match of the description and emotion; else a random one. `None` when the
    /// library is empty.
    pub async fn pick_emoji(&self, query: EmojiQuery) -> Result<Option<Emoji>, StoreError> {
        self.call(move |conn| pick(conn, &query)).await
    }

    /// How many emojis the library holds.
    pub async fn emoji_count(&self) -> Result<usize, StoreError> {
        self.call(|conn| {
            let count: i64 = conn.query_row("SELECT count(*) FROM emojis", [], |row| row.get(0))?;
            Ok(count as usize)
        })
        .await
    }
}
