//! Text times read by SQLite's `unixepoch()`.

use async_trait::async_trait;
use rusqlite::Connection;

use super::SqliteStore;
use crate::builtin::engine::TimeBound;
use crate::builtin::store::StoreError;
use crate::builtin::store::backend::TimeBackend;
use crate::builtin::store::time::{Bound, End, classify, finish};

/// Unix seconds of a bound; `what` names the argument in the error.
pub(super) fn resolve(
    conn: &Connection,
    bound: &TimeBound,
    end: End,
    what: &str,
) -> Result<f64, StoreError> {
    let text = match classify(bound, what)? {
        Bound::Seconds(seconds) => return Ok(seconds),
        Bound::Text(text) => text,
    };
    let parsed: Option<f64> =
        conn.query_row("SELECT unixepoch(?1, 'subsec')", [text], |row| row.get(0))?;
    finish(text, parsed, end, what)
}

#[async_trait]
impl TimeBackend for SqliteStore {
    async fn parse_time(&self, bound: &TimeBound) -> Result<f64, StoreError> {
        let bound = bound.clone();
        self.call(move |conn| resolve(conn, &bound, End::Start, "time"))
            .await
    }
}
