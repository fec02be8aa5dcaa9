//! Long-term memories in SQLite, with FTS5 full-text search (bm25 ranking).
//!
//! How the `query_memory` modes map onto the store:
//!
//! | mode | rows | order |
//! |---|---|---|
//! | `search` | `MATCH` on title and content | bm25 |
//! | `hybrid` | `MATCH`, within the time range | bm25 |
//! | `time` | within the time range, narrowed by `MATCH` when keywords are given | newest first |
//! | `episode` | kind `episode`, `MATCH` when keywords are given | bm25, else newest first |
//! | `aggregate` | `MATCH` per kind, best hits of each kind interleaved | bm25 within a kind |
//!
//! Every mode also applies the person filter, the time range when one is given, and the chat
//! filter when `respect_filter` is set (memories scoped to another chat are hidden).

use std::collections::BTreeMap;

use rusqlite::{Connection, Row, named_params};

use async_trait::async_trait;

use super::SqliteStore;
use super::time::resolve;
use crate::builtin::engine::{MemoryHit, MemoryMode, MemoryQuery, NewMemory};
use crate::builtin::store::backend::MemoryBackend;
use crate::builtin::store::fts::{match_query, segment};
use crate::builtin::store::time::{End, now};
use crate::builtin::store::{MemoryStats, StoreError};

const FILTERS: &str = "(:person = '' OR m.person_id = :person)
   AND (:kind IS NULL OR m.kind = :kind)
   AND (:start IS NULL OR m.created_at >= :start)
   AND (:end IS NULL OR m.created_at <= :end)
   AND (:respect = 0 OR m.chat_id = '' OR m.chat_id IN (SELECT value FROM json_each(:chats)))";

fn hit_from_row(row: &Row<'_>) -> rusqlite::Result<MemoryHit> {
    Ok(MemoryHit {
        id: row.get(0)?,
        kind: row.get(1)?,
        title: row.get(2)?,
        content: row.get(3)?,
        person_id: row.get(4)?,
        chat_id: row.get(5)?,
        time: row.get(6)?,
        score: row.get(7)?,
    })
}

/// The resolved filters of one search.
struct Filters {
    person: String,
    start: Option<f64>,
    end: Option<f64>,
    respect: bool,
    chats: String,
}

pub(super) fn insert(conn: &mut Connection, memory: &NewMemory) -> Result<Option<i64>, StoreError> {
    let content = memory.content.trim();
    if content.is_empty() {
        return Err(StoreError::Invalid(
            "a memory needs non-empty content".into(),
        ));
    }
    let kind = match memory.kind.trim() {
        "" => "fact",
        kind => kind,
    };
    let created_at = match &memory.time {
        Some(bound) => resolve(conn, bound, End::Start, "memory time")?,
        None => now(),
    };
    let tx = conn.transaction()?;
    let inserted = tx.execute(
        "INSERT OR IGNORE INTO memories (kind, title, content, person_id, chat_id, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        rusqlite::params![
            kind,
            memory.title.trim(),
            content,
            memory.person_id.trim(),
            memory.chat_id.trim(),
            created_at
        ],
    )?;
    if inserted == 0 {
        return Ok(None);
    }
    let id = tx.last_insert_rowid();
    tx.execute(
        "INSERT INTO memories_fts (rowid, title, content) VALUES (?1, ?2, ?3)",
        rusqlite::params![id, segment(memory.title.trim()), segment(content)],
    )?;
    tx.commit()?;
    Ok(Some(id))
}

fn ranked(
    conn: &Connection,
    fts: &str,
    kind: Option<&str>,
    filters: &Filters,
    limit: usize,
    newest_first: bool,
) -> Result<Vec<MemoryHit>, StoreError> {
    // The score is the negated bm25 (lower bm25 is better); titles weigh twice their content.
    let order = if newest_first {
        "m.created_at DESC"
    } else {
        "score DESC"
    };
    let mut statement = conn.prepare_cached(&format!(
        "SELECT m.id, m.kind, m.title, m.content, m.person_id, m.chat_id, m.created_at,
                -bm25(memories_fts, 2.0, 1.0) AS score
         FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid
         WHERE memories_fts MATCH :fts AND {FILTERS}
         ORDER BY {order}, m.id LIMIT :limit"
    ))?;
    let rows = statement.query_map(
        named_params! {
            ":fts": fts,
            ":person": filters.person,
            ":kind": kind,
            ":start": filters.start,
            ":end": filters.end,
            ":respect": filters.respect,
            ":chats": filters.chats,
            ":limit": limit as i64,
        },
        hit_from_row,
    )?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

fn by_time(
    conn: &Connection,
    kind: Option<&str>,
    filters: &Filters,
    limit: usize,
) -> Result<Vec<MemoryHit>, StoreError> {
    let mut statement = conn.prepare_cached(&format!(
        "SELECT m.id, m.kind, m.title, m.content, m.person_id, m.chat_id, m.created_at, 0.0
         FROM memories m WHERE {FILTERS}
         ORDER BY m.created_at DESC, m.id DESC LIMIT :limit"
    ))?;
    let rows = statement.query_map(
        named_params! {
            ":person": filters.person,
            ":kind": kind,
            ":start": filters.start,
            ":end": filters.end,
            ":respect": filters.respect,
            ":chats": filters.chats,
            ":limit": limit as i64,
        },
        hit_from_row,
    )?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

fn aggregate(
    conn: &Connection,
    fts: &str,
    filters: &Filters,
    limit: usize,
) -> Result<Vec<MemoryHit>, StoreError> {
    // Round-robin over kinds (the best of each kind, then the second best, ...), so one kind
    // with many close matches cannot crowd out the rest; one pass over the matches.
    // Only ids, kinds and scores go through the window; the text is read for the winners.
    let mut statement = conn.prepare_cached(&format!(
        "SELECT m.id, m.kind, m.title, m.content, m.person_id, m.chat_id, m.created_at, r.score
         FROM (
           SELECT id, kind, score,
                  row_number() OVER (PARTITION BY kind ORDER BY score DESC, id) AS position
           FROM (
             SELECT m.id AS id, m.kind AS kind, -bm25(memories_fts, 2.0, 1.0) AS score
             FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid
             WHERE memories_fts MATCH :fts AND {FILTERS}
           )
           ORDER BY position, kind LIMIT :limit
         ) r JOIN memories m ON m.id = r.id
         ORDER BY r.position, r.kind"
    ))?;
    let rows = statement.query_map(
        named_params! {
            ":fts": fts,
            ":person": filters.person,
            ":kind": Option::<&str>::None,
            ":start": filters.start,
            ":end": filters.end,
            ":respect": filters.respect,
            ":chats": filters.chats,
            ":limit": limit as i64,
        },
        hit_from_row,
    )?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

pub(super) fn search(conn: &Connection, query: &MemoryQuery) -> Result<Vec<MemoryHit>, StoreError> {
    let limit = query.limit.max(1);
    let filters = Filters {
        person: query.person_id.clone().unwrap_or_default(),
        start: query
            .time_start
            .as_ref()
            .map(|bound| resolve(conn, bound, End::Start, "time_start"))
            .transpose()?,
        end: query
            .time_end
            .as_ref()
            .map(|bound| resolve(conn, bound, End::Finish, "time_end"))
            .transpose()?,
        respect: query.respect_filter,
        chats: serde_json::Value::from(query.chat_ids.clone()).to_string(),
    };
    let fts = match_query(&query.query);
    let has_time = filters.start.is_some() || filters.end.is_some();
    match (query.mode, fts.as_deref()) {
        (MemoryMode::Time, Some(fts)) => ranked(conn, fts, None, &filters, limit, true),
        (MemoryMode::Time, None) if has_time => by_time(conn, None, &filters, limit),
        (MemoryMode::Episode, Some(fts)) => {
            ranked(conn, fts, Some("episode"), &filters, limit, false)
        }
        (MemoryMode::Episode, None) => by_time(conn, Some("episode"), &filters, limit),
        (MemoryMode::Aggregate, Some(fts)) => aggregate(conn, fts, &filters, limit),
        (MemoryMode::Search | MemoryMode::Hybrid, Some(fts)) => {
            ranked(conn, fts, None, &filters, limit, false)
        }
        (_, None) if has_time => by_time(conn, None, &filters, limit),
        (mode, None) => Err(StoreError::Invalid(format!(
            "query_memory mode {mode} needs keywords: `{}` has no searchable words",
            query.query
        ))),
    }
}

#[async_trait]
impl MemoryBackend for SqliteStore {
    /// Stores a memory and indexes it for full-text search. `None` when an identical memory
    /// (same kind, content, person and chat) is already stored.
    async fn add_memory(&self, memory: NewMemory) -> Result<Option<i64>, StoreError> {
        self.call(move |conn| insert(conn, &memory)).await
    }

    /// Searches memories; docs/BUILTIN.md describes the modes.
    async fn search_memories(&self, query: MemoryQuery) -> Result<Vec<MemoryHit>, StoreError> {
        self.call(move |conn| search(conn, &query)).await
    }

    /// How many memories are stored, per kind.
    async fn memory_stats(&self) -> Result<MemoryStats, StoreError> {
        self.call(|conn| {
            let mut statement =
                conn.prepare_cached("SELECT kind, count(*) FROM memories GROUP BY kind")?;
            let rows = statement.query_map([], |row| {
                Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)? as usize))
            })?;
            let by_kind: BTreeMap<String, usize> = rows.collect::<Result<_, _>>()?;
            Ok(MemoryStats {
                total: by_kind.values().sum(),
                by_kind,
            })
        })
        .await
    }
}
