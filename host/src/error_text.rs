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

#[cfg(test)]
mod tests;
