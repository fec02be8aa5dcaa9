//! `tools/list`, every page, read tool by tool: one tool that breaks rmcp's strict model
//! (no `inputSchema`, a schema that is not an object, a missing name) must not cost the
//! server all its tools.
//!
//! rmcp parses a `tools/list` result as a whole; when any tool fails to parse, the result
//! arrives as a `CustomResult` with the raw JSON and `list_tools` reports "Unexpected
//! response type". Here such a page is read tool by tool: a tool without `inputSchema` (or
//! with one that is not an object) gets `{"type":"object","properties":{}}` (takes any
//! object, as the spec's `inputSchema` minimum); an
//! `outputSchema` that is not an object is dropped; a tool that still does not parse is
//! dropped. Each repair and drop is logged as a warning naming the server and the tool.

use rmcp::Peer;
use rmcp::model::{
    ClientRequest, CustomResult, ListToolsRequest, PaginatedRequestParams, ServerResult, Tool,
};
use rmcp::service::RoleClient;
use serde_json::{Value, json};

/// More pages than any real server has: a cursor that never ends is a server bug.
const MAX_PAGES: usize = 10_000;

/// Why listing failed.
#[derive(Debug, thiserror::Error)]
pub enum ListError {
    /// The request failed (transport, JSON-RPC error, timeout).
    #[error(transparent)]
    Service(#[from] rmcp::ServiceError),
    /// The server answered with something that is not a tool list.
    #[error("the server answered tools/list with {0}")]
    NotAList(String),
}

/// Every tool of every page, in order.
pub async fn list_all_tools(peer: &Peer<RoleClient>, server: &str) -> Result<Vec<Tool>, ListError> {
    let mut tools = Vec::new();
    let mut cursor = None;
    for _ in 0..MAX_PAGES {
        let params = PaginatedRequestParams::default().with_cursor(cursor);
        let request = ClientRequest::ListToolsRequest(ListToolsRequest::with_param(params));
        let (page, next) = match peer.send_request(request).await? {
            ServerResult::ListToolsResult(page) => (page.tools, page.next_cursor),
            ServerResult::CustomResult(CustomResult(raw)) => read_page(server, raw)?,
            other => {
                return Err(ListError::NotAList(format!(
                    "a result of another request type: {}",
                    clip(&serde_json::to_string(&other).unwrap_or_default())
                )));
            }
        };
        tools.extend(page);
        match next {
            Some(next) if !next.is_empty() => cursor = Some(next),
            _ => return Ok(tools),
        }
    }
    Err(ListError::NotAList(format!(
        "more than {MAX_PAGES} pages (the cursor never ends)"
    )))
}

/// A page rmcp did not parse: the tools that can be read or repaired, and the next cursor.
pub fn read_page(server: &str, raw: Value) -> Result<(Vec<Tool>, Option<String>), ListError> {
    let Value::Object(mut page) = raw else {
        return Err(ListError::NotAList(format!(
            "a non-object result: {}",
            clip(&raw.to_string())
        )));
    };
    let Some(Value::Array(raw_tools)) = page.remove("tools") else {
        return Err(ListError::NotAList(format!(
            "a result without a `tools` array: {}",
            clip(&Value::Object(page).to_string())
        )));
    };
    let next = page
        .get("nextCursor")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let mut tools = Vec::with_capacity(raw_tools.len());
    for (index, raw) in raw_tools.into_iter().enumerate() {
        match read_tool(raw) {
            Ok((tool, repairs)) => {
                for repair in repairs {
                    tracing::warn!(server, tool = %tool.name, "MCP tool repaired: {repair}");
                }
                tools.push(tool);
            }
            Err((name, reason)) => {
                tracing::warn!(server, tool = %name.unwrap_or_else(|| format!("#{index}")), "MCP tool dropped: {reason}");
            }
        }
    }
    Ok((tools, next))
}

type Repairs = Vec<&'static str>;

/// One tool, repaired where the spec says what to assume; `Err` carries its name (when it
/// has one) and why it cannot be used.
fn read_tool(raw: Value) -> Result<(Tool, Repairs), (Option<String>, String)> {
    let Value::Object(mut tool) = raw else {
        return Err((None, format!("not an object: {}", clip(&raw.to_string()))));
    };
    let name = tool.get("name").and_then(Value::as_str).map(str::to_owned);
    if name.is_none() {
        return Err((None, "no `name`".to_owned()));
    }
    let mut repairs = Repairs::new();
    match tool.get("inputSchema") {
        Some(Value::Object(_)) => {}
        None | Some(Value::Null) => {
            repairs.push("no `inputSchema`; taken as {\"type\":\"object\",\"properties\":{}}");
            tool.insert("inputSchema".to_owned(), object_schema());
        }
        Some(_) => {
            repairs.push(
                "`inputSchema` is not an object; taken as {\"type\":\"object\",\"properties\":{}}",
            );
            tool.insert("inputSchema".to_owned(), object_schema());
        }
    }
    if tool
        .get("outputSchema")
        .is_some_and(|schema| !schema.is_object())
    {
        repairs.push("`outputSchema` is not an object; dropped");
        tool.remove("outputSchema");
    }
    match serde_json::from_value::<Tool>(Value::Object(tool)) {
        Ok(tool) => Ok((tool, repairs)),
        Err(err) => Err((name, format!("does not parse as an MCP tool: {err}"))),
    }
}

fn object_schema() -> Value {
    json!({"type": "object", "properties": {}})
}

fn clip(text: &str) -> String {
    const MAX: usize = 300;
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests;
