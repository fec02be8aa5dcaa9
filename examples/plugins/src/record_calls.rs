//! For the chaos test: with `RECORD_CALLS=FILE` in its environment, a tool appends the call id
//! of every call it executes to FILE, one per line, before it answers. The test then checks
//! that no call ran twice and that every call answered with success ran exactly once.
//!
//! One `write` per id on a file opened with `O_APPEND`: lines from several runners sharing
//! the file never interleave, and a line is in the file once the call has run, even if the
//! runner is SIGKILLed right after.

use std::fs::File;
use std::io::Write;
use std::sync::OnceLock;

static FILE: OnceLock<Option<File>> = OnceLock::new();

/// Records that the call `call_id` ran (nothing without `RECORD_CALLS`, or without an id).
pub fn ran(call_id: &str) {
    let file = FILE.get_or_init(|| {
        let path = std::env::var_os("RECORD_CALLS")?;
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .ok()
    });
    if let Some(mut file) = file.as_ref()
        && !call_id.is_empty()
    {
        let _ = file.write_all(format!("{call_id}\n").as_bytes());
    }
}
