//! An error with its sources on one line, for the texts a model or an operator reads (failed
//! capability calls, tool results, RPC errors sent to a runner), where no `{:#}` formatter
//! walks the chain for us.

use std::error::Error;
use std::fmt;

/// Displays an error followed by each of its sources, `": "`-separated, like anyhow's `{:#}`.
/// A source whose text the error before it already ends with is not repeated: some library
/// errors (the wire's, SQLite's) both print their cause and return it as their source.
pub(crate) struct Chain<'a>(pub &'a (dyn Error + 'static));

impl fmt::Display for Chain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut shown = self.0.to_string();
        f.write_str(&shown)?;
        let mut source = self.0.source();
        while let Some(cause) = source {
            let text = cause.to_string();
            if !shown.ends_with(&text) {
                write!(f, ": {text}")?;
            }
            shown = text;
            source = cause.source();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::Chain;

    #[derive(Debug, thiserror::Error)]
    #[error("cannot open store")]
    struct Outer(#[source] std::io::Error);

    #[test]
    fn every_source_follows_the_error() {
        let err = Outer(std::io::Error::other("disk on fire"));
        assert_eq!(Chain(&err).to_string(), "cannot open store: disk on fire");
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
            Chain(&err).to_string(),
            "malformed runner.hello: cannot decode message: bad marker"
        );
    }
}
