//! `finish`: end the current round of thinking.

use maitool_protocol::{ToolExecutionContext, ToolExecutionResult, ToolInvocation, ToolSpec};
use serde_json::json;

use super::format::object_schema;
use super::{HandlerContext, HandlerResult, args, session_of};
use crate::builtin::entry::SpecContext;

pub(crate) fn spec(_: SpecContext<'_>) -> ToolSpec {
    ToolSpec::new(
        "finish",
        "End the current round of thinking. Call it when nothing more needs doing now; the \
         conversation resumes when something new happens.",
    )
    .with_parameters(object_schema(
        vec![(
            "reason",
            json!({"type": "string", "description": "Optional. Why the round ends."}),
        )],
        &[],
    ))
}

pub(super) async fn run(
    ctx: &HandlerContext,
    invocation: &ToolInvocation,
    exec: &ToolExecutionContext,
) -> HandlerResult {
    let reason = args::string(&invocation.arguments, "reason")?.unwrap_or_default();
    ctx.engine
        .end_round(session_of(invocation, exec), &reason)
        .await?;
    Ok(
        ToolExecutionResult::success(&invocation.tool_name, "The current round is finished.")
            .with_metadata("pause_execution", true)
            .with_metadata("finish_round", true)
            .with_metadata("finish_reason", reason),
    )
}
