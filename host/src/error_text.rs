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
mod tests {
    use super::chain;

    #[derive(Debug, thiserror::Error)]
    #[error("outer")]
    struct Outer(#[source] Middle);

    #[derive(Debug, thiserror::Error)]
    #[error("middle: {0}")]
    struct Middle(#[source] std::io::Error);

    #[test]
    fn every_cause_is_shown_once() {
        let err = Outer(Middle(std::io::Error::other("disk gone")));
        assert_eq!(chain(&err), "outer: middle: disk gone");
    }

    #[derive(Debug, thiserror::Error)]
    #[error("cannot decode message: {0}")]
    struct Repeats(#[source] std::io::Error);

    #[derive(Debug, thiserror::Error)]
    #[error("malformed runner.hello")]
    struct Hello(#[source] Repeats);

    #[test]
    fn a_source_its_error_already_printed_is_not_repeated() {
        let err = Hello(Repeats(std::io::Error::other("bad marker")));
        assert_eq!(
            chain(&err),
            "malformed runner.hello: cannot decode message: bad marker"
        );
    }
}
