//! `tool_search`: find deferred tools by name or keyword and make them available from the next
//! turn (see [`crate::builtin::discovery`]).

use maitool_protocol::{ToolExecutionContext, ToolExecutionResult, ToolInvocation, ToolSpec};
use serde_json::json;

use super::format::object_schema;
use super::{HandlerContext, HandlerResult, ToolFailure, args, session_of};
use crate::builtin::discovery::{DEFAULT_SEARCH_LIMIT, DeferredTool, DiscoveryError, search};
use crate::builtin::entry::SpecContext;
use crate::builtin::stage::Stage;
use maitool_protocol::Visibility;

pub(crate) fn spec(_: SpecContext<'_>) -> ToolSpec {
    ToolSpec::new(
        "tool_search",
        "Search the deferred tools by name or keyword; the tools found join your available \
         tools from the next turn.",
    )
    .with_parameters(object_schema(
        vec![
            (
                "query",
                json!({"type": "string", "description": "A tool name, a prefix or keywords."}),
            ),
            (
                "limit",
                json!({"type": "integer", "description": "At most this many tools.", "minimum": 1}),
            ),
        ],
        &["query"],
    ))
}

pub(super) async fn run(
    ctx: &HandlerContext,
    invocation: &ToolInvocation,
    exec: &ToolExecutionContext,
) -> HandlerResult {
    let Some(query) = args::string(&invocation.arguments, "query")? else {
        return Err(ToolFailure::new(
            "tool_search needs a non-empty `query` string",
        ));
    };
    let limit = args::integer(&invocation.arguments, "limit")?
        .map(|limit| limit.max(1) as usize)
        .unwrap_or(DEFAULT_SEARCH_LIMIT);
    let session = session_of(invocation, exec);
    let availability = exec.availability();
    let unavailable = |error: DiscoveryError| {
        ToolFailure::new(format!(
            "tool_search failed: {}",
            crate::error_text::chain(&error)
        ))
    };
    let pool = match ctx
        .discovery
        .deferred_pool(session, &availability)
        .await
        .map_err(unavailable)?
    {
        Some(pool) => pool,
        // No registry attached and no tool set built yet: the built-ins' own deferred tools are
        // all that is known.
        None => (ctx.own_specs)(
            &ctx.config,
            ctx.engine.capabilities(),
            &availability,
            Stage::Action,
        )
        .iter()
        .filter(|spec| Visibility::of_spec(spec) == Visibility::Deferred)
        .map(DeferredTool::from)
        .collect(),
    };
    let matched: Vec<String> = search(&pool, &query, limit)
        .into_iter()
        .map(|hit| hit.name)
        .collect();
    let newly = if matched.is_empty() {
        Vec::new()
    } else {
        ctx.discovery
            .record_search(session, &invocation.call_id, &matched)
            .await
            .map_err(unavailable)?
    };
    let structured = json!({
        "query": query,
        "matched_tool_names": matched,
        "newly_discovered_tool_names": newly,
    });
    if matched.is_empty() {
        return Ok(ToolExecutionResult::success(
            &invocation.tool_name,
            "No deferred tools match. Try a fuller tool name, a prefix or other keywords.",
        )
        .with_structured(structured));
    }
    let mut content = format!(
        "Found {} deferred tool(s); they join your available tools from the next turn:",
        matched.len()
    );
    for name in &matched {
        let note = if newly.contains(name) {
            "newly discovered"
        } else {
            "discovered earlier"
        };
        content.push_str(&format!("\n- {name} ({note})"));
    }
    Ok(ToolExecutionResult::success(&invocation.tool_name, content)
        .with_structured(structured)
        .with_metadata("matched_tool_names", matched)
        .with_metadata("newly_discovered_tool_names", newly))
}
