//! SQLite files that several `maitool` processes open at once (a `serve` and an in-process
//! `maitool call` on the same config, or two hosts started together on a fresh data dir).

use std::time::{Duration, Instant};

use rusqlite::Connection;

/// How long a connection waits for another process's lock before failing.
const LOCK_WAIT: Duration = Duration::from_secs(5);

/// Sets a busy timeout and WAL journaling on a freshly opened file connection.
///
/// The timeout comes first: without it SQLite fails at once with "database is locked"
/// whenever another process holds the file. WAL lets readers (an operator's sqlite3 shell)
/// work during writes. Switching to WAL needs an exclusive lock, and SQLite answers
/// `SQLITE_BUSY` for it without consulting the busy timeout, so that step is retried within
/// the same budget.
pub(crate) fn share_between_processes(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(LOCK_WAIT)?;
    let deadline = Instant::now() + LOCK_WAIT;
    loop {
        match conn.pragma_update_and_check(None, "journal_mode", "WAL", |_| Ok(())) {
            Err(rusqlite::Error::SqliteFailure(failure, _))
                if failure.code == rusqlite::ErrorCode::DatabaseBusy
                    && Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(5));
            }
            outcome => return outcome,
        }
    }
}
