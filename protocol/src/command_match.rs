//! How a chat message picks a command: MaiBot's rule, shared by the host and the SDK's test
//! harness (feature `command-match`).
//!
//! A command declares a regular expression (`command_pattern`) and aliases. A message matches
//! it when the pattern is found anywhere in its text (Python's `re.search`; anchor it with `^`
//! to match at the start), which gives the pattern's named groups; failing that, when the
//! text starts with one of the aliases, with no groups. Patterns are Python's syntax, read by
//! `fancy-regex`: named groups `(?P<name>...)`, lookaround and backreferences work. A search
//! that backtracks too long is abandoned as no match (Python's `re` would hang the bot).

use serde_json::Value;

use crate::model::JsonObject;

/// A command's pattern and aliases, compiled once.
///
/// ```
/// use maitool_protocol::command_match::{CommandMatcher, MatchedBy};
///
/// let weather = CommandMatcher::new(r"^/weather\s+(?P<city>\S+)", vec!["/w".into()]);
/// let hit = weather.matches("/weather Paris").unwrap();
/// assert_eq!(hit.groups["city"], "Paris");
/// assert_eq!(hit.by, MatchedBy::Pattern);
/// assert_eq!(weather.matches("/w").unwrap().by, MatchedBy::Alias("/w".into()));
/// assert!(weather.matches("what is the weather").is_none());
/// ```
#[derive(Debug, Clone)]
pub struct CommandMatcher {
    source: String,
    pattern: Result<Option<fancy_regex::Regex>, String>,
    aliases: Vec<String>,
}

/// What matched a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MatchedBy {
    /// The pattern.
    Pattern,
    /// This alias, a prefix of the text.
    Alias(String),
}

/// A message that matched a command.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandMatch {
    /// The pattern's named groups: the text each matched, or `null` for a group that took
    /// no part in the match. Empty when an alias matched.
    pub groups: JsonObject,
    /// The pattern or an alias.
    pub by: MatchedBy,
}

impl CommandMatcher {
    /// Compiles `pattern` (empty: none). A pattern that does not compile leaves the command
    /// matched by its aliases alone, as in MaiBot; [`pattern_error`](Self::pattern_error)
    /// says why.
    pub fn new(pattern: &str, aliases: Vec<String>) -> CommandMatcher {
        let compiled = if pattern.is_empty() {
            Ok(None)
        } else {
            fancy_regex::Regex::new(pattern)
                .map(Some)
                .map_err(|err| err.to_string())
        };
        CommandMatcher {
            source: pattern.to_owned(),
            pattern: compiled,
            aliases: aliases.into_iter().filter(|a| !a.is_empty()).collect(),
        }
    }

    /// The pattern as declared.
    pub fn pattern(&self) -> &str {
        &self.source
    }

    /// The aliases (empty ones left out: every text starts with the empty string).
    pub fn aliases(&self) -> &[String] {
        &self.aliases
    }

    /// Why the pattern does not compile, if it does not.
    pub fn pattern_error(&self) -> Option<&str> {
        self.pattern.as_ref().err().map(String::as_str)
    }

    /// Whether `text` calls this command, and with which groups.
    pub fn matches(&self, text: &str) -> Option<CommandMatch> {
        if let Ok(Some(pattern)) = &self.pattern {
            match pattern.captures(text) {
                Ok(Some(captures)) => {
                    let groups = pattern
                        .capture_names()
                        .flatten()
                        .map(|name| {
                            let value = captures
                                .name(name)
                                .map(|m| Value::String(m.as_str().to_owned()))
                                .unwrap_or(Value::Null);
                            (name.to_owned(), value)
                        })
                        .collect();
                    return Some(CommandMatch {
                        groups,
                        by: MatchedBy::Pattern,
                    });
                }
                Ok(None) => {}
                Err(err) => tracing::warn!(
                    pattern = %self.source,
                    "command pattern search abandoned, read as no match: {err}"
                ),
            }
        }
        self.aliases
            .iter()
            .find(|alias| text.starts_with(alias.as_str()))
            .map(|alias| CommandMatch {
                groups: JsonObject::new(),
                by: MatchedBy::Alias(alias.clone()),
            })
    }
}

#[cfg(test)]
mod tests;
