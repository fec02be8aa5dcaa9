//! Times in the store: Unix seconds as a double. Text times are parsed by the database's own
//! date functions (SQLite's `unixepoch()`, PostgreSQL's `timestamptz` input), read as UTC;
//! both accept `YYYY-MM-DD`, `YYYY-MM-DD HH:MM[:SS]` and ISO 8601 with `T` and a zone.

use std::time::{SystemTime, UNIX_EPOCH};

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

/// A bound as the caller gave it: seconds already, or text for the database to read.
pub(super) enum Bound<'a> {
    Seconds(f64),
    Text(&'a str),
}

/// Seconds given as a number or numeric text need no database; anything else is text.
pub(super) fn classify<'a>(bound: &'a TimeBound, what: &str) -> Result<Bound<'a>, StoreError> {
    let text = match bound {
        TimeBound::Unix(seconds) if seconds.is_finite() => return Ok(Bound::Seconds(*seconds)),
        TimeBound::Unix(seconds) => {
            return Err(StoreError::Invalid(format!("invalid {what} `{seconds}`")));
        }
        TimeBound::Text(text) => text.trim(),
    };
    match text.parse::<f64>() {
        Ok(seconds) if seconds.is_finite() => Ok(Bound::Seconds(seconds)),
        _ => Ok(Bound::Text(text)),
    }
}

/// The seconds the database read from `text` (`None`: it could not), as the bound's end.
pub(super) fn finish(
    text: &str,
    parsed: Option<f64>,
    end: End,
    what: &str,
) -> Result<f64, StoreError> {
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
