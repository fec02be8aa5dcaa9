//! Errors made text, for the places where a person or a model reads them on one line: a
//! control-socket answer, a `503` body, a server's `last_error` in `status`, a failed
//! capability call, a handshake refusal, a log line. Library errors keep their causes as
//! `source()`; this walks the chain, as anyhow's `{:#}` does in the binary.

use std::error::Error;

/// `err: cause: cause's cause`, skipping a cause whose text the line already holds (some
/// errors repeat their source in their own message).
pub fn chain(err: &dyn Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// The `io::Error` that is `err`'s direct source; panics, naming what it found, when there
/// is none. For tests that check an error keeps the OS's reason.
#[cfg(test)]
pub(crate) fn io_source<'a>(err: &'a (dyn Error + 'static)) -> &'a std::io::Error {
    let source = err.source().unwrap_or_else(|| panic!("no source: {err:?}"));
    source
        .downcast_ref()
        .unwrap_or_else(|| panic!("the source is not an io::Error: {source:?}"))
}

#[cfg(test)]
mod tests;
