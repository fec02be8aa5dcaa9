//! Times in the store: Unix seconds as `REAL`. Text times are parsed by SQLite's own date
//! functions, so the store accepts exactly what `unixepoch()` accepts (`YYYY-MM-DD`,
//! `YYYY-MM-DD HH:MM[:SS]`, ISO 8601 with `T` and a zone), read as UTC.

use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::Connection;

use super::StoreError;
use crate::builtin::engine::TimeBound;

/// Now, in Unix seconds.
pub(crate) fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| elapsed.as_secs_f64())
        .unwrap_or(0.0)
}

/// Which end of a range a bound is; a bare date as an end means the end of that day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum End {
    Start,
    Finish,
}

/// Unix seconds of a bound; `what` names the argument in the error.
pub(super) fn resolve(
    conn: &Connection,
    bound: &TimeBound,
    end: End,
    what: &str,
) -> Result<f64, StoreError> {
    let text = match bound {
        TimeBound::Unix(seconds) if seconds.is_finite() => return Ok(*seconds),
        TimeBound::Unix(seconds) => {
            return Err(StoreError::Invalid(format!("invalid {what} `{seconds}`")));
        }
        TimeBound::Text(text) => text.trim(),
    };
    if let Ok(seconds) = text.parse::<f64>()
        && seconds.is_finite()
    {
        return Ok(seconds);
    }
    let parsed: Option<f64> =
        conn.query_row("SELECT unixepoch(?1, 'subsec')", [text], |row| row.get(0))?;
    let seconds = parsed.ok_or_else(|| {
        StoreError::Invalid(format!(
            "invalid {what} `{text}`: use Unix seconds, YYYY-MM-DD or YYYY-MM-DD HH:MM[:SS] (UTC)"
        ))
    })?;
    let bare_date = text.len() == 10 && text.as_bytes().get(4) == Some(&b'-');
    Ok(if end == End::Finish && bare_date {
        seconds + 86_399.999
    } else {
        seconds
    })
}

impl super::Store {
    /// Unix seconds of a time given as seconds or text (read as UTC).
    pub async fn parse_time(&self, bound: &TimeBound) -> Result<f64, StoreError> {
        let bound = bound.clone();
        self.call(move |conn| resolve(conn, &bound, End::Start, "time"))
            .await
    }
}
