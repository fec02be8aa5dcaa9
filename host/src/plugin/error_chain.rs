//! An error with its sources on one line, for the texts a model or an operator reads (failed
//! capability calls, tool results, RPC errors sent to a runner), where no `{:#}` formatter
//! walks the chain for us.

use std::error::Error;
use std::fmt;

/// Displays an error followed by each of its sources, `": "`-separated, like anyhow's `{:#}`.
pub(crate) struct Chain<'a>(pub &'a (dyn Error + 'static));

impl fmt::Display for Chain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)?;
        let mut source = self.0.source();
        while let Some(cause) = source {
            write!(f, ": {cause}")?;
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
}
