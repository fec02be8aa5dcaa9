//! Import of Claude-Desktop-style `{"mcpServers": {...}}` JSON files, the format most MCP
//! servers document (Claude Desktop, Claude Code's `.mcp.json`, Cursor, Cline).

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::{MapAccess, Visitor};
use serde_json::Value;

use super::server_config::{McpServerConfig, McpTransport};

/// A Claude Desktop file that cannot be used. Every message names the file; a problem in an
/// entry also names the entry and the key.
#[derive(Debug, thiserror::Error)]
pub enum ClaudeDesktopError {
    /// The file could not be read.
    #[error("cannot read Claude Desktop config {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file is not JSON. The parser's message, with its line and column, is part of this
    /// line: it says what is wrong with the file rather than why reading it failed.
    #[error("invalid Claude Desktop config {}: {error}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// The parser's error.
        error: serde_json::Error,
    },
    /// The file has no `mcpServers` object.
    #[error("invalid Claude Desktop config {}: no top-level `mcpServers` object", path.display())]
    NoServers {
        /// The file.
        path: PathBuf,
    },
    /// One server entry is invalid.
    #[error("invalid Claude Desktop config {}: mcpServers.{name:?}: {problem}", path.display())]
    Entry {
        /// The file.
        path: PathBuf,
        /// The entry's name.
        name: String,
        /// What is wrong with it.
        problem: EntryError,
    },
}

/// What is wrong with one server entry of a Claude Desktop file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EntryError {
    /// The entry is not a JSON object.
    #[error("must be an object")]
    NotAnObject,
    /// A key that takes a string has another value.
    #[error("`{key}` must be a string, got {got}")]
    NotAString {
        /// The key (`args[1]` for a list item).
        key: String,
        /// The value, as JSON.
        got: String,
    },
    /// A key that takes a list of strings has another value.
    #[error("`{key}` must be an array of strings")]
    NotAList {
        /// The key.
        key: String,
    },
    /// A key that takes an object of strings has another value.
    #[error("`{key}` must be an object of strings")]
    NotAMap {
        /// The key.
        key: String,
    },
    /// The transport is not one maitool speaks.
    #[error("`{key}` must be \"stdio\", \"http\", \"streamable-http\" or \"sse\", got {value:?}")]
    Transport {
        /// The key (`type`, `transport` or `transportType`).
        key: String,
        /// The value.
        value: String,
    },
    /// `disabled` is not a boolean.
    #[error("`disabled` must be true or false")]
    Disabled,
}

/// Reads a Claude Desktop file into server configs, in file order (order decides tool-name
/// collisions). An entry is a stdio server (`command`, `args`, `env`, `cwd`) or a remote one
/// (`url`, `headers`); `type` (`stdio`, `http`, `streamable-http`, `sse`) makes it explicit,
/// and `"disabled": true` disables it. Keys other clients add (`autoApprove`, `timeout`,
/// ...) are ignored.
pub fn load_claude_desktop_config(path: &Path) -> Result<Vec<McpServerConfig>, ClaudeDesktopError> {
    let text = std::fs::read_to_string(path).map_err(|source| ClaudeDesktopError::Read {
        path: path.to_owned(),
        source,
    })?;
    parse_claude_desktop_config(&text, path)
}

/// Parses the text of a Claude Desktop file; `path` is only used in errors.
pub fn parse_claude_desktop_config(
    text: &str,
    path: &Path,
) -> Result<Vec<McpServerConfig>, ClaudeDesktopError> {
    let file: ClaudeDesktopFile =
        serde_json::from_str(text).map_err(|error| ClaudeDesktopError::Json {
            path: path.to_owned(),
            error,
        })?;
    let Some(OrderedMap(entries)) = file.mcp_servers else {
        return Err(ClaudeDesktopError::NoServers {
            path: path.to_owned(),
        });
    };
    entries
        .into_iter()
        .map(|(name, value)| {
            server_from_entry(&name, value).map_err(|problem| ClaudeDesktopError::Entry {
                path: path.to_owned(),
                name,
                problem,
            })
        })
        .collect()
}

#[derive(Deserialize)]
struct ClaudeDesktopFile {
    #[serde(rename = "mcpServers")]
    mcp_servers: Option<OrderedMap>,
}

/// A JSON object kept in document order (serde_json's map is sorted without the
/// `preserve_order` feature).
struct OrderedMap(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for OrderedMap {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct OrderedVisitor;
        impl<'de> Visitor<'de> for OrderedVisitor {
            type Value = OrderedMap;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of servers")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OrderedMap, A::Error> {
                let mut entries = Vec::new();
                while let Some((key, value)) = map.next_entry::<String, Value>()? {
                    entries.push((key, value));
                }
                Ok(OrderedMap(entries))
            }
        }
        deserializer.deserialize_map(OrderedVisitor)
    }
}

fn server_from_entry(name: &str, value: Value) -> Result<McpServerConfig, EntryError> {
    let Value::Object(entry) = value else {
        return Err(EntryError::NotAnObject);
    };
    let mut server = McpServerConfig {
        name: name.to_owned(),
        ..McpServerConfig::default()
    };
    let mut explicit_transport = None;
    for (key, value) in entry {
        match key.as_str() {
            "command" => server.command = string(&key, value)?,
            "args" => server.args = string_list(&key, value)?,
            "env" => server.env = string_map(&key, value)?,
            "cwd" => server.cwd = Some(PathBuf::from(string(&key, value)?)),
            "url" | "serverUrl" => server.url = string(&key, value)?,
            "headers" => server.headers = string_map(&key, value)?,
            "type" | "transport" | "transportType" => {
                explicit_transport = Some(transport(&key, &string(&key, value)?)?);
            }
            "disabled" => {
                server.enabled = !value.as_bool().ok_or(EntryError::Disabled)?;
            }
            other => tracing::debug!(server = name, key = other, "ignoring Claude Desktop key"),
        }
    }
    server.transport = match explicit_transport {
        Some(transport) => transport,
        None if server.command.is_empty() && !server.url.is_empty() => McpTransport::StreamableHttp,
        None => McpTransport::Stdio,
    };
    Ok(server)
}

fn transport(key: &str, value: &str) -> Result<McpTransport, EntryError> {
    match value.to_ascii_lowercase().replace(['-', '_'], "").as_str() {
        "stdio" => Ok(McpTransport::Stdio),
        "http" | "streamablehttp" => Ok(McpTransport::StreamableHttp),
        "sse" => Ok(McpTransport::Sse),
        _ => Err(EntryError::Transport {
            key: key.to_owned(),
            value: value.to_owned(),
        }),
    }
}

fn string(key: &str, value: Value) -> Result<String, EntryError> {
    match value {
        Value::String(text) => Ok(text),
        other => Err(EntryError::NotAString {
            key: key.to_owned(),
            got: other.to_string(),
        }),
    }
}

fn string_list(key: &str, value: Value) -> Result<Vec<String>, EntryError> {
    let Value::Array(items) = value else {
        return Err(EntryError::NotAList {
            key: key.to_owned(),
        });
    };
    items
        .into_iter()
        .enumerate()
        .map(|(index, item)| string(&format!("{key}[{index}]"), item))
        .collect()
}

fn string_map(key: &str, value: Value) -> Result<BTreeMap<String, String>, EntryError> {
    let Value::Object(map) = value else {
        return Err(EntryError::NotAMap {
            key: key.to_owned(),
        });
    };
    map.into_iter()
        .map(|(name, item)| {
            // Numbers and booleans in env blocks are common; they mean their JSON text.
            let text = match item {
                Value::String(text) => text,
                Value::Number(number) => number.to_string(),
                Value::Bool(flag) => flag.to_string(),
                other => {
                    return Err(EntryError::NotAString {
                        key: format!("{key}.{name}"),
                        got: other.to_string(),
                    });
                }
            };
            Ok((name, text))
        })
        .collect()
}

#[cfg(test)]
mod tests;
