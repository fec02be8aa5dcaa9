//! `query_memory`: search long-term memory, with MaiBot's modes, limits and fallbacks.

use maitool_protocol::{
    JsonObject, ToolExecutionContext, ToolExecutionResult, ToolInvocation, ToolSpec,
};
use serde_json::{Value, json};

use super::format::{datetime, object_schema};
use super::{HandlerContext, HandlerResult, ToolFailure, args, session_of, stream_of};
use crate::builtin::engine::{MemoryHit, MemoryMode, MemoryQuery, PersonLookup, TimeBound};
use crate::builtin::entry::SpecContext;

/// The most hits one call may ask for.
const MAX_LIMIT: i64 = 20;

pub(crate) fn spec(_: SpecContext<'_>) -> ToolSpec {
    let modes: Vec<&str> = MemoryMode::ALL.iter().map(|mode| mode.as_str()).collect();
    ToolSpec::new("query_memory", "Search long-term memory.").with_parameters(object_schema(
        vec![
            (
                "query",
                json!({"type": "string", "description": "Keywords or a question; required unless the search is by time only."}),
            ),
            (
                "limit",
                json!({"type": "integer", "description": "How many memories to return (1 to 20).", "minimum": 1, "maximum": 20}),
            ),
            (
                "mode",
                json!({
                    "type": "string",
                    "description": "search: by keywords. time: by time range, needs time_start \
                                    or time_end. hybrid: keywords within a time range, needs \
                                    query and a time. episode: experiences. aggregate: an \
                                    overall picture across kinds of memory. Use search when \
                                    unsure and no time is involved.",
                    "enum": modes,
                    "default": "search",
                }),
            ),
            (
                "person_name",
                json!({
                    "type": "string",
                    "description": "A person's nickname, to search memories about them. A \
                                    nickname can look like an ordinary phrase: write it exactly; \
                                    leave empty when unsure who is meant.",
                }),
            ),
            (
                "time_start",
                json!({"type": "string", "description": "Start time: YYYY-MM-DD, YYYY-MM-DD HH:MM or Unix seconds."}),
            ),
            (
                "time_end",
                json!({"type": "string", "description": "End time, same formats; a bare date includes that whole day."}),
            ),
            (
                "respect_filter",
                json!({
                    "type": "boolean",
                    "description": "Respect the memory filter (hide memories tied to other \
                                    chats); default true, false for vague sources or an \
                                    overall impression.",
                    "default": true,
                }),
            ),
        ],
        &[],
    ))
}

fn time_bound(arguments: &JsonObject, name: &str) -> Result<Option<TimeBound>, ToolFailure> {
    Ok(match arguments.get(name) {
        Some(Value::Number(number)) => number.as_f64().map(TimeBound::Unix),
        _ => args::string(arguments, name)?.map(TimeBound::Text),
    })
}

fn render(hits: &[MemoryHit]) -> String {
    hits.iter()
        .enumerate()
        .map(|(position, hit)| {
            let title = if hit.title.is_empty() {
                String::new()
            } else {
                format!("{}: ", hit.title)
            };
            let content = hit.content.split_whitespace().collect::<Vec<_>>().join(" ");
            format!(
                "{}. [{} · {}] {title}{content}",
                position + 1,
                hit.kind,
                datetime(hit.time)
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

pub(super) async fn run(
    ctx: &HandlerContext,
    invocation: &ToolInvocation,
    exec: &ToolExecutionContext,
) -> HandlerResult {
    let arguments = &invocation.arguments;
    let query = args::string(arguments, "query")?.unwrap_or_default();
    let requested_mode = args::string(arguments, "mode")?
        .map(|mode| mode.parse::<MemoryMode>())
        .transpose()
        .map_err(ToolFailure::new)?
        .unwrap_or_default();
    let default_limit = i64::from(ctx.config.memory_query_default_limit);
    let limit = args::integer(arguments, "limit")?
        .unwrap_or(default_limit)
        .clamp(1, MAX_LIMIT) as usize;
    let time_start = time_bound(arguments, "time_start")?;
    let time_end = time_bound(arguments, "time_end")?;
    let has_time = time_start.is_some() || time_end.is_some();
    if query.is_empty() && !has_time {
        return Err(ToolFailure::new(
            "query_memory needs a `query`, or at least one of `time_start` and `time_end`",
        ));
    }
    if requested_mode == MemoryMode::Time && !has_time {
        return Err(ToolFailure::new(
            "mode time needs `time_start` or `time_end`; use mode search for keywords alone",
        ));
    }
    let mut notes = Vec::new();
    let mut fallback_reason = "";
    // Models sometimes pick hybrid without a time; it then means a plain keyword search.
    let mut mode = requested_mode;
    if mode == MemoryMode::Hybrid && !has_time {
        mode = MemoryMode::Search;
        fallback_reason = "hybrid_without_time";
        notes.push("Note: hybrid mode got no time range, so this is a keyword search.");
    }
    let respect_filter = args::boolean(arguments, "respect_filter")?.unwrap_or(true);
    let (session, stream) = (session_of(invocation, exec), stream_of(invocation, exec));
    let person_name = args::string(arguments, "person_name")?.unwrap_or_default();
    // As MaiBot: a named person first; in a private chat, the other party.
    let person = if !person_name.is_empty() {
        ctx.engine
            .find_person(PersonLookup {
                person_name: Some(person_name.clone()),
                platform: exec.platform.clone(),
                trait_limit: 1,
                ..PersonLookup::default()
            })
            .await?
    } else if exec.group_id.is_empty() && !exec.user_id.is_empty() {
        ctx.engine
            .find_person(PersonLookup {
                platform: exec.platform.clone(),
                user_id: exec.user_id.clone(),
                trait_limit: 1,
                ..PersonLookup::default()
            })
            .await?
    } else {
        None
    };
    let person_id = person.map(|person| person.person_id);
    let chat_ids: Vec<String> = [session, stream]
        .into_iter()
        .filter(|id| !id.is_empty())
        .map(str::to_owned)
        .collect();
    let mut memory_query = MemoryQuery {
        query: query.clone(),
        mode,
        limit,
        person_id: person_id.clone(),
        chat_ids,
        time_start: time_start.clone(),
        time_end: time_end.clone(),
        respect_filter,
    };
    let mut hits = ctx.engine.query_memory(memory_query.clone()).await?;
    let primary_hit_count = hits.len();
    let mut effective_mode = mode;
    if hits.is_empty() && person_id.is_some() && !query.is_empty() {
        // Nothing about that person: a keyword search beats an empty answer.
        memory_query.person_id = None;
        memory_query.mode = MemoryMode::Search;
        memory_query.time_start = None;
        memory_query.time_end = None;
        hits = ctx.engine.query_memory(memory_query).await?;
        effective_mode = MemoryMode::Search;
        fallback_reason = "person_filter_miss";
        notes.push("Note: nothing matched for that person, so this is a plain keyword search.");
    }
    let mut content = notes.join("\n");
    if !content.is_empty() {
        content.push('\n');
    }
    if hits.is_empty() {
        content.push_str("No matching long-term memories found.");
    } else {
        content.push_str(&render(&hits));
    }
    let structured = json!({
        "query": query,
        "mode": requested_mode,
        "effective_mode": effective_mode,
        "limit": limit,
        "person_name": person_name,
        "person_id": person_id.unwrap_or_default(),
        "time_start": time_start,
        "time_end": time_end,
        "respect_filter": respect_filter,
        "fallback_applied": !fallback_reason.is_empty(),
        "fallback_reason": fallback_reason,
        "primary_hit_count": primary_hit_count,
        "hits": hits,
    });
    Ok(ToolExecutionResult::success(&invocation.tool_name, content).with_structured(structured))
}
