//! Import of Claude-Desktop-style `{"mcpServers": {...}}` JSON files, the format most MCP
//! servers document (Claude Desktop, Claude Code's `.mcp.json`, Cursor, Cline).

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::{MapAccess, Visitor};
use serde_json::Value;

use super::config::{McpConfigError, McpServerConfig, McpTransport};

/// Reads a Claude Desktop file into server configs, in file order (order decides tool-name
/// collisions). An entry is a stdio server (`command`, `args`, `env`, `cwd`) or a remote one
/// (`url`, `headers`); `type` (`stdio`, `http`, `streamable-http`, `sse`) makes it explicit,
/// and `"disabled": true` disables it. Keys other clients add (`autoApprove`, `timeout`,
/// ...) are ignored.
pub fn load_claude_desktop_config(path: &Path) -> Result<Vec<McpServerConfig>, McpConfigError> {
    let text =
        std::fs::read_to_string(path).map_err(|source| McpConfigError::ClaudeDesktopRead {
            path: path.to_owned(),
            source,
        })?;
    parse_claude_desktop_config(&text, path)
}

/// Parses the text of a Claude Desktop file; `path` is only used in errors.
pub fn parse_claude_desktop_config(
    text: &str,
    path: &Path,
) -> Result<Vec<McpServerConfig>, McpConfigError> {
    let parse_error = |message: String| McpConfigError::ClaudeDesktopParse {
        path: path.to_owned(),
        message,
    };
    let file: ClaudeDesktopFile =
        serde_json::from_str(text).map_err(|err| parse_error(err.to_string()))?;
    let Some(OrderedMap(entries)) = file.mcp_servers else {
        return Err(parse_error("no top-level `mcpServers` object".to_owned()));
    };
    entries
        .into_iter()
        .map(|(name, value)| {
            server_from_entry(&name, value)
                .map_err(|message| parse_error(format!("mcpServers.{name:?}: {message}")))
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

fn server_from_entry(name: &str, value: Value) -> Result<McpServerConfig, String> {
    let Value::Object(entry) = value else {
        return Err("must be an object".to_owned());
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
                server.enabled = !value
                    .as_bool()
                    .ok_or_else(|| "`disabled` must be true or false".to_owned())?;
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

fn transport(key: &str, value: &str) -> Result<McpTransport, String> {
    match value.to_ascii_lowercase().replace(['-', '_'], "").as_str() {
        "stdio" => Ok(McpTransport::Stdio),
        "http" | "streamablehttp" => Ok(McpTransport::StreamableHttp),
        "sse" => Ok(McpTransport::Sse),
        _ => Err(format!(
            "`{key}` must be \"stdio\", \"http\", \"streamable-http\" or \"sse\", got {value:?}"
        )),
    }
}

fn string(key: &str, value: Value) -> Result<String, String> {
    match value {
        Value::String(text) => Ok(text),
        other => Err(format!("`{key}` must be a string, got {other}")),
    }
}

fn string_list(key: &str, value: Value) -> Result<Vec<String>, String> {
    let Value::Array(items) = value else {
        return Err(format!("`{key}` must be an array of strings"));
    };
    items
        .into_iter()
        .enumerate()
        .map(|(index, item)| string(&format!("{key}[{index}]"), item))
        .collect()
}

fn string_map(key: &str, value: Value) -> Result<BTreeMap<String, String>, String> {
    let Value::Object(map) = value else {
        return Err(format!("`{key}` must be an object of strings"));
    };
    map.into_iter()
        .map(|(name, item)| {
            // Numbers and booleans in env blocks are common; they mean their JSON text.
            let text = match item {
                Value::String(text) => text,
                Value::Number(number) => number.to_string(),
                Value::Bool(flag) => flag.to_string(),
                other => return Err(format!("`{key}.{name}` must be a string, got {other}")),
            };
            Ok((name, text))
        })
        .collect()
}

#[cfg(test)]
mod tests;
