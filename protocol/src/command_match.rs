//! How a chat message picks a command, shared by the host and the SDK's test harness
//! (feature `command-match`).
//!
//! A command declares a regular expression (`command_pattern`) and aliases. A message matches
//! it when the pattern is found anywhere in its text (Python's `re.search`; anchor it with `^`
//! to match at the start), which gives the pattern's named groups, or when the text starts
//! with one of the aliases, with no groups. Patterns are Python's syntax, read by
//! `fancy-regex`: named groups `(?P<name>...)`, lookaround and backreferences work. A search
//! that backtracks too long is abandoned as no match (Python's `re` would hang the bot).
//!
//! Among several commands ([`first_match`]), every pattern is tried before any alias, and
//! the longest alias wins. MaiBot tries each command's pattern and then its aliases before
//! the next command, so that an alias `/r` of one command took `/remember ...` from the
//! next command's pattern.

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

    /// Whether `text` calls this command, and with which groups: its pattern, else an
    /// alias.
    pub fn matches(&self, text: &str) -> Option<CommandMatch> {
        self.pattern_match(text).or_else(|| {
            self.alias_match(text).map(|alias| CommandMatch {
                groups: JsonObject::new(),
                by: MatchedBy::Alias(alias.to_owned()),
            })
        })
    }

    /// The longest of the aliases that `text` starts with.
    pub fn alias_match(&self, text: &str) -> Option<&str> {
        self.aliases
            .iter()
            .filter(|alias| text.starts_with(alias.as_str()))
            .max_by_key(|alias| alias.len())
            .map(String::as_str)
    }

    /// Whether the pattern is found in `text`, with its named groups.
    pub fn pattern_match(&self, text: &str) -> Option<CommandMatch> {
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
        None
    }
}

/// The command among `commands` (in their order) that `text` calls: the first whose pattern
/// is found in it; else the one with the longest alias the text starts with (the first of
/// equals).
///
/// ```
/// use maitool_protocol::command_match::{CommandMatcher, MatchedBy, first_match};
///
/// let roll = CommandMatcher::new(r"^/roll\b", vec!["/r".into()]);
/// let remember = CommandMatcher::new(r"^/remember\s+(?P<note>.+)", vec![]);
/// let commands = [("roll", &roll), ("remember", &remember)];
/// let (name, hit) = first_match(commands, "/remember milk").unwrap();
/// assert_eq!((name, hit.groups["note"].as_str()), ("remember", Some("milk")));
/// assert_eq!(first_match(commands, "/r").unwrap().1.by, MatchedBy::Alias("/r".into()));
/// ```
pub fn first_match<'a, T>(
    commands: impl IntoIterator<Item = (T, &'a CommandMatcher)>,
    text: &str,
) -> Option<(T, CommandMatch)> {
    let mut best_alias: Option<(T, &'a str)> = None;
    for (command, matcher) in commands {
        if let Some(hit) = matcher.pattern_match(text) {
            return Some((command, hit));
        }
        if let Some(alias) = matcher.alias_match(text)
            && best_alias
                .as_ref()
                .is_none_or(|(_, best)| alias.len() > best.len())
        {
            best_alias = Some((command, alias));
        }
    }
    best_alias.map(|(command, alias)| {
        (
            command,
            CommandMatch {
                groups: JsonObject::new(),
                by: MatchedBy::Alias(alias.to_owned()),
            },
        )
    })
}

#[cfg(test)]
mod tests;
