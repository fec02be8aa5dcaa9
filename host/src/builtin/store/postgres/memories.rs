//! Long-term memories in PostgreSQL, searched through a `tsvector` of the same words the
//! SQLite store indexes (see `store/fts.rs`), ranked by `ts_rank` with titles weighing twice
//! their content. The modes select the same rows as on SQLite (see `store/sqlite/memories.rs`);
//! only the scores differ.

use std::collections::BTreeMap;

use async_trait::async_trait;
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::PostgresStore;
use super::time::resolve;
use crate::builtin::engine::{MemoryHit, MemoryMode, MemoryQuery, NewMemory};
use crate::builtin::store::backend::MemoryBackend;
use crate::builtin::store::fts::{ts_query, words};
use crate::builtin::store::time::{End, now};
use crate::builtin::store::{MemoryStats, StoreError};

/// Filters shared by every mode; parameters $1 to $6.
const FILTERS: &str = "($1 = '' OR m.person_id = $1)
   AND ($2::text IS NULL OR m.kind = $2)
   AND ($3::float8 IS NULL OR m.created_at >= $3)
   AND ($4::float8 IS NULL OR m.created_at <= $4)
   AND (NOT $5 OR m.chat_id = '' OR m.chat_id = ANY ($6))";

/// `ts_rank` weights, D, C, B, A: content (B) and title (A) as 1 to 2, as the SQLite store's
/// bm25 weighs them.
const SCORE: &str = "ts_rank('{0, 0, 0.5, 1}', m.search, q)::float8";

const HIT_COLUMNS: &str = "m.id, m.kind, m.title, m.content, m.person_id, m.chat_id, m.created_at";

fn hit_from_row(row: &Row) -> MemoryHit {
    MemoryHit {
        id: row.get(0),
        kind: row.get(1),
        title: row.get(2),
        content: row.get(3),
        person_id: row.get(4),
        chat_id: row.get(5),
        time: row.get(6),
        score: row.get(7),
    }
}

/// The resolved filters of one search.
struct Filters {
    person: String,
    start: Option<f64>,
    end: Option<f64>,
    respect: bool,
    chats: Vec<String>,
}

impl Filters {
    fn params<'a>(&'a self, kind: &'a Option<&'a str>) -> Vec<&'a (dyn ToSql + Sync)> {
        vec![
            &self.person,
            kind,
            &self.start,
            &self.end,
            &self.respect,
            &self.chats,
        ]
    }
}

impl PostgresStore {
    async fn ranked(
        &self,
        tsquery: &str,
        kind: Option<&str>,
        filters: &Filters,
        limit: usize,
        newest_first: bool,
    ) -> Result<Vec<MemoryHit>, StoreError> {
        let order = if newest_first {
            "m.created_at DESC"
        } else {
            "score DESC"
        };
        let client = self.client().await?;
        let statement = client
            .prepare_cached(&format!(
                "SELECT {HIT_COLUMNS}, {SCORE} AS score
                 FROM memories m, to_tsquery('simple', $7) q
                 WHERE m.search @@ q AND {FILTERS}
                 ORDER BY {order}, m.id LIMIT $8"
            ))
            .await?;
        let limit = limit as i64;
        let mut params = filters.params(&kind);
        params.extend([&tsquery as &(dyn ToSql + Sync), &limit]);
        let rows = client.query(&statement, &params).await?;
        Ok(rows.iter().map(hit_from_row).collect())
    }

    async fn by_time(
        &self,
        kind: Option<&str>,
        filters: &Filters,
        limit: usize,
    ) -> Result<Vec<MemoryHit>, StoreError> {
        let client = self.client().await?;
        let statement = client
            .prepare_cached(&format!(
                "SELECT {HIT_COLUMNS}, 0.0::float8 FROM memories m WHERE {FILTERS}
                 ORDER BY m.created_at DESC, m.id DESC LIMIT $7"
            ))
            .await?;
        let limit = limit as i64;
        let mut params = filters.params(&kind);
        params.push(&limit);
        let rows = client.query(&statement, &params).await?;
        Ok(rows.iter().map(hit_from_row).collect())
    }

    async fn aggregate(
        &self,
        tsquery: &str,
        filters: &Filters,
        limit: usize,
    ) -> Result<Vec<MemoryHit>, StoreError> {
        // Round-robin over kinds, as on SQLite: the best of each kind, then the second best.
        let client = self.client().await?;
        let statement = client
            .prepare_cached(&format!(
                "SELECT {HIT_COLUMNS}, r.score
                 FROM (
                   SELECT id, kind, score,
                          row_number() OVER (PARTITION BY kind ORDER BY score DESC, id) AS position
                   FROM (
                     SELECT m.id AS id, m.kind AS kind, {SCORE} AS score
                     FROM memories m, to_tsquery('simple', $7) q
                     WHERE m.search @@ q AND {FILTERS}
                   ) hits
                   ORDER BY position, kind LIMIT $8
                 ) r JOIN memories m ON m.id = r.id
                 ORDER BY r.position, r.kind"
            ))
            .await?;
        let limit = limit as i64;
        let kind: Option<&str> = None;
        let mut params = filters.params(&kind);
        params.extend([&tsquery as &(dyn ToSql + Sync), &limit]);
        let rows = client.query(&statement, &params).await?;
        Ok(rows.iter().map(hit_from_row).collect())
    }
}

#[async_trait]
impl MemoryBackend for PostgresStore {
    async fn add_memory(&self, memory: NewMemory) -> Result<Option<i64>, StoreError> {
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
        let mut client = self.client().await?;
        let created_at = match &memory.time {
            Some(bound) => resolve(&mut client, bound, End::Start, "memory time").await?,
            None => now(),
        };
        let title = memory.title.trim();
        let statement = client
            .prepare_cached(
                "INSERT INTO memories (kind, title, content, person_id, chat_id, created_at,
                                       title_words, content_words)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                 ON CONFLICT (kind, md5(content), person_id, chat_id) DO NOTHING
                 RETURNING id",
            )
            .await?;
        let row = client
            .query_opt(
                &statement,
                &[
                    &kind,
                    &title,
                    &content,
                    &memory.person_id.trim(),
                    &memory.chat_id.trim(),
                    &created_at,
                    &words(title),
                    &words(content),
                ],
            )
            .await?;
        Ok(row.map(|row| row.get(0)))
    }

    async fn search_memories(&self, query: MemoryQuery) -> Result<Vec<MemoryHit>, StoreError> {
        let limit = query.limit.max(1);
        let (start, end) = {
            let mut client = self.client().await?;
            let start = match &query.time_start {
                Some(bound) => Some(resolve(&mut client, bound, End::Start, "time_start").await?),
                None => None,
            };
            let end = match &query.time_end {
                Some(bound) => Some(resolve(&mut client, bound, End::Finish, "time_end").await?),
                None => None,
            };
            (start, end)
        };
        let filters = Filters {
            person: query.person_id.clone().unwrap_or_default(),
            start,
            end,
            respect: query.respect_filter,
            chats: query.chat_ids.clone(),
        };
        let tsquery = ts_query(&query.query);
        let has_time = filters.start.is_some() || filters.end.is_some();
        match (query.mode, tsquery.as_deref()) {
            (MemoryMode::Time, Some(q)) => self.ranked(q, None, &filters, limit, true).await,
            (MemoryMode::Time, None) if has_time => self.by_time(None, &filters, limit).await,
            (MemoryMode::Episode, Some(q)) => {
                self.ranked(q, Some("episode"), &filters, limit, false)
                    .await
            }
            (MemoryMode::Episode, None) => self.by_time(Some("episode"), &filters, limit).await,
            (MemoryMode::Aggregate, Some(q)) => self.aggregate(q, &filters, limit).await,
            (MemoryMode::Search | MemoryMode::Hybrid, Some(q)) => {
                self.ranked(q, None, &filters, limit, false).await
            }
            (_, None) if has_time => self.by_time(None, &filters, limit).await,
            (mode, None) => Err(StoreError::Invalid(format!(
                "query_memory mode {mode} needs keywords: `{}` has no searchable words",
                query.query
            ))),
        }
    }

    async fn memory_stats(&self) -> Result<MemoryStats, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query("SELECT kind, count(*) FROM memories GROUP BY kind", &[])
            .await?;
        let by_kind: BTreeMap<String, usize> = rows
            .iter()
            .map(|row| (row.get::<_, String>(0), row.get::<_, i64>(1) as usize))
            .collect();
        Ok(MemoryStats {
            total: by_kind.values().sum(),
            by_kind,
        })
    }
}
