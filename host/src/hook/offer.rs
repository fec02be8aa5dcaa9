//! The planner's request hook (`maisaka.planner.before_request`) over a session's tool
//! listing: the one point where maitool builds the tool list a session is offered.
//!
//! MaiBot runs the hook just before its planner asks the model, with the context items and
//! the tool definitions of that request; a handler that drops a definition hides the tool from
//! the request. maitool builds no context items (the engine does), so the hook runs where the
//! tool list is built: on every listing for a session, with the tools listed as MaiBot's
//! OpenAI function definitions and the items empty. What the handlers return is the offer:
//!
//! * a definition left out removes its tool from that session's listing (and so from what an
//!   engine exposes, `tool_search` finds, `maitool definitions` renders, the MCP front lists);
//! * the definitions' order becomes the listing's order;
//! * a definition whose description or parameters a handler rewrote is offered rewritten (a
//!   call is still checked against the tool's own schema);
//! * a definition naming no tool listed in that context is left out with a warning: maitool
//!   offers only tools it can run (MaiBot would send the model a tool it cannot call);
//! * anything but a list keeps the listing as it was; rewritten `items` are for an engine
//!   that runs the hook itself with its own items (`Host::invoke_hook`).
//!
//! The listing is not a permission: a call by name still runs a tool the hook left out, as in
//! MaiBot, whose planner only ever offers the list.

use std::collections::HashSet;
use std::sync::{Arc, OnceLock};

use maitool_protocol::{JsonObject, ToolAvailabilityContext, ToolSpec};
use parking_lot::Mutex;
use serde_json::{Value, json};

use super::HookInvoker;
use super::reach::PLANNER_BEFORE_REQUEST;
use crate::llm::{ModelApi, render_tools};

/// MaiBot's context-item payload version (`CONTEXT_ITEM_SCHEMA_VERSION`).
pub const ITEM_SCHEMA_VERSION: u64 = 1;

/// The `selection_reason` maitool passes: no history was selected, only tools listed.
pub const SELECTION_REASON: &str = "maitool tool listing: no context items are built here";

/// The session a listing is for: the session id, else the stream id (MaiBot's session is
/// its stream); `None` for a listing outside any session, which the hook does not shape.
pub fn session_of(ctx: &ToolAvailabilityContext) -> Option<&str> {
    [ctx.session_id.as_str(), ctx.stream_id.as_str()]
        .into_iter()
        .find(|id| !id.is_empty())
}

/// The kwargs of the planner's request hook for `tools`, offered to `session`.
pub fn planner_kwargs(session: &str, tools: &[Arc<ToolSpec>]) -> JsonObject {
    let definitions: Vec<Value> = tools.iter().map(|spec| definition(spec)).collect();
    let Value::Object(kwargs) = json!({
        "items": [],
        "item_schema_version": ITEM_SCHEMA_VERSION,
        "tool_definitions": definitions,
        "selected_history_count": 0,
        "built_message_count": 0,
        "selection_reason": SELECTION_REASON,
        "session_id": session,
    }) else {
        unreachable!("a JSON object literal")
    };
    kwargs
}

/// A tool as MaiBot's planner hook sees it: an OpenAI function definition.
fn definition(spec: &ToolSpec) -> Value {
    let rendered = render_tools(ModelApi::OpenAiChat, &[spec.to_llm_definition()]);
    match rendered {
        Value::Array(mut one) if one.len() == 1 => one.remove(0),
        other => other,
    }
}

/// Runs the planner's request hook over `tools`, the listing in `ctx`, and returns what the
/// session is offered. A listing outside a session, or with no handler subscribed, is
/// returned as it is, without building anything.
pub async fn shape(
    invoker: &dyn HookInvoker,
    ctx: &ToolAvailabilityContext,
    tools: Vec<Arc<ToolSpec>>,
) -> Vec<Arc<ToolSpec>> {
    let Some(session) = session_of(ctx) else {
        return tools;
    };
    if !invoker.has_handlers(PLANNER_BEFORE_REQUEST) {
        return tools;
    }
    let Some(spec) = maitool_protocol::hook::spec(PLANNER_BEFORE_REQUEST) else {
        return tools;
    };
    let outcome = invoker.invoke(spec, planner_kwargs(session, &tools)).await;
    for error in &outcome.errors {
        tracing::debug!(hook = PLANNER_BEFORE_REQUEST, session, "{error}");
    }
    match outcome.kwargs.get("tool_definitions") {
        Some(Value::Array(definitions)) => apply(session, tools, definitions),
        Some(other) => {
            tracing::warn!(
                hook = PLANNER_BEFORE_REQUEST,
                session,
                "the hook's tool_definitions are {}, not a list: the listing is kept as it was",
                maitool_protocol::json_kind(other)
            );
            tools
        }
        None => tools,
    }
}

/// The listing as the hook's `definitions` say.
fn apply(session: &str, tools: Vec<Arc<ToolSpec>>, definitions: &[Value]) -> Vec<Arc<ToolSpec>> {
    let mut offered = Vec::with_capacity(definitions.len());
    let mut seen = HashSet::new();
    for item in definitions {
        let Some(name) = definition_name(item) else {
            continue;
        };
        if !seen.insert(name) {
            continue;
        }
        let Some(original) = tools.iter().find(|spec| spec.name == name) else {
            warn_unknown(session, name);
            continue;
        };
        if *item == definition(original) {
            offered.push(Arc::clone(original));
        } else {
            offered.push(Arc::new(rewritten(original, item)));
        }
    }
    offered
}

/// The function name of a definition in OpenAI's shape (`{function: {name}}`) or a flat one
/// (`{name}`), as MaiBot reads both.
fn definition_name(item: &Value) -> Option<&str> {
    let object = item.as_object()?;
    let function = object
        .get("function")
        .and_then(Value::as_object)
        .unwrap_or(object);
    function.get("name").and_then(Value::as_str)
}

/// `original` with the description and parameters a handler wrote into `item`.
fn rewritten(original: &ToolSpec, item: &Value) -> ToolSpec {
    let function = item
        .get("function")
        .and_then(Value::as_object)
        .or_else(|| item.as_object());
    let mut spec = original.clone();
    if let Some(function) = function {
        if let Some(description) = function.get("description").and_then(Value::as_str) {
            spec.description = description.to_owned();
        }
        if let Some(parameters) = function.get("parameters").and_then(Value::as_object) {
            spec.parameters_schema = Some(parameters.clone());
        }
    }
    spec
}

/// Warns once per name: listings repeat for every request.
fn warn_unknown(session: &str, name: &str) {
    static WARNED: OnceLock<Mutex<HashSet<String>>> = OnceLock::new();
    let warned = WARNED.get_or_init(Default::default);
    if warned.lock().insert(name.to_owned()) {
        tracing::warn!(
            hook = PLANNER_BEFORE_REQUEST,
            session,
            tool = name,
            "a hook handler offered tool {name}, which no provider lists in this context: it is \
             left out, since maitool offers only tools it can run"
        );
    }
}
