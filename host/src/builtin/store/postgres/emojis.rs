//! The emoji library in PostgreSQL; text matches through the `search` tsvector of the same
//! words the SQLite store indexes. Emotion tags compare case-insensitively through `lower()`,
//! as SQLite's `NOCASE` compares them.

use async_trait::async_trait;
use tokio_postgres::Row;

use super::{PostgresStore, blocking};
use crate::builtin::engine::{Emoji, EmojiMatch, EmojiQuery};
use crate::builtin::store::backend::EmojiBackend;
use crate::builtin::store::fts::{ts_query, words};
use crate::builtin::store::images::{StoredEmoji, load_emoji, prepare_emoji};
use crate::builtin::store::{NewEmoji, StoreError};

const COLUMNS: &str = "e.id, e.path, e.data, e.mime_type, e.description, e.emotions";

fn from_row(row: &Row) -> StoredEmoji {
    StoredEmoji {
        id: row.get(0),
        path: row.get(1),
        data: row.get(2),
        mime_type: row.get(3),
        description: row.get(4),
        emotions: row.get(5),
    }
}

/// The emoji with its image; its file, if any, is read in the blocking pool.
async fn load(row: Option<Row>, matched: EmojiMatch) -> Result<Option<Emoji>, StoreError> {
    let Some(row) = row else {
        return Ok(None);
    };
    let stored = from_row(&row);
    blocking(move || load_emoji(stored, matched))
        .await
        .map(Some)
}

#[async_trait]
impl EmojiBackend for PostgresStore {
    async fn add_emoji(&self, emoji: NewEmoji) -> Result<i64, StoreError> {
        // Hashing may read the emoji's file.
        let emoji = blocking(move || prepare_emoji(emoji)).await?;
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        let description_words = words(&emoji.description);
        let emotion_words = words(&emoji.emotions.join(" "));
        let fields: [&(dyn tokio_postgres::types::ToSql + Sync); 9] = [
            &emoji.source,
            &emoji.path,
            &emoji.data,
            &emoji.mime_type,
            &emoji.description,
            &emoji.emotions_json,
            &emoji.hash,
            &description_words,
            &emotion_words,
        ];
        // Update first, so that only a new emoji draws an id (see `persons.rs`).
        let updated = tx
            .query_opt(
                "UPDATE emojis SET path = $2, data = $3, mime_type = $4, description = $5,
                                   emotions = $6, hash = $7, description_words = $8,
                                   emotion_words = $9
                 WHERE source = $1 RETURNING id",
                &fields,
            )
            .await?;
        let id: i64 = match updated {
            Some(row) => row.get(0),
            None => tx
                .query_one(
                    "INSERT INTO emojis (source, path, data, mime_type, description, emotions,
                                         hash, description_words, emotion_words)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                     ON CONFLICT (source) DO UPDATE SET
                       path = excluded.path, data = excluded.data,
                       mime_type = excluded.mime_type, description = excluded.description,
                       emotions = excluded.emotions, hash = excluded.hash,
                       description_words = excluded.description_words,
                       emotion_words = excluded.emotion_words
                     RETURNING id",
                    &fields,
                )
                .await?
                .get(0),
        };
        tx.execute("DELETE FROM emoji_emotions WHERE emoji_id = $1", &[&id])
            .await?;
        for emotion in &emoji.emotions {
            tx.execute(
                "INSERT INTO emoji_emotions (emoji_id, emotion) VALUES ($1, $2)
                 ON CONFLICT DO NOTHING",
                &[&id, emotion],
            )
            .await?;
        }
        tx.commit().await?;
        Ok(id)
    }

    async fn pick_emoji(&self, query: EmojiQuery) -> Result<Option<Emoji>, StoreError> {
        let wanted = |text: &Option<String>| {
            text.as_deref()
                .map(str::trim)
                .filter(|text| !text.is_empty())
                .map(str::to_owned)
        };
        let (emotion, description) = (wanted(&query.emotion), wanted(&query.description));
        let client = self.client().await?;
        if let Some(emotion) = &emotion {
            let row = client
                .query_opt(
                    &format!(
                        "SELECT {COLUMNS} FROM emojis e JOIN emoji_emotions t ON t.emoji_id = e.id
                         WHERE lower(t.emotion) = lower($1) ORDER BY random() LIMIT 1"
                    ),
                    &[emotion],
                )
                .await?;
            if row.is_some() {
                return load(row, EmojiMatch::Emotion(emotion.clone())).await;
            }
        }
        // No exact tag: full-text match of whatever was asked for against descriptions and tags.
        let text = [description.as_deref(), emotion.as_deref()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" ");
        if let Some(tsquery) = ts_query(&text) {
            let row = client
                .query_opt(
                    &format!(
                        "SELECT {COLUMNS} FROM emojis e, to_tsquery('simple', $1) q
                         WHERE e.search @@ q ORDER BY ts_rank(e.search, q) DESC, e.id LIMIT 1"
                    ),
                    &[&tsquery],
                )
                .await?;
            if row.is_some() {
                return load(row, EmojiMatch::Text(text)).await;
            }
        }
        let row = client
            .query_opt(
                &format!("SELECT {COLUMNS} FROM emojis e ORDER BY random() LIMIT 1"),
                &[],
            )
            .await?;
        load(row, EmojiMatch::Random).await
    }

    async fn emoji_count(&self) -> Result<usize, StoreError> {
        let client = self.client().await?;
        let row = client.query_one("SELECT count(*) FROM emojis", &[]).await?;
        Ok(row.get::<_, i64>(0) as usize)
    }

    async fn all_emojis(&self) -> Result<Vec<Emoji>, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(
                &format!("SELECT {COLUMNS} FROM emojis e ORDER BY e.id"),
                &[],
            )
            .await?;
        let stored: Vec<StoredEmoji> = rows.iter().map(from_row).collect();
        blocking(move || {
            stored
                .into_iter()
                .map(|row| load_emoji(row, EmojiMatch::Random))
                .collect()
        })
        .await
    }

    async fn delete_emoji(&self, id: i64) -> Result<bool, StoreError> {
        let client = self.client().await?;
        Ok(client
            .execute("DELETE FROM emojis WHERE id = $1", &[&id])
            .await?
            > 0)
    }
}
