//! `wait`: pause the conversation for a while, up to a limit of consecutive waits.

use maitool_protocol::{ToolExecutionContext, ToolExecutionResult, ToolInvocation, ToolSpec};
use serde_json::json;

use super::format::object_schema;
use super::{HandlerContext, HandlerResult, args, session_of};
use crate::builtin::entry::SpecContext;

/// Seconds waited when the model gives none.
const DEFAULT_SECONDS: i64 = 30;

pub(crate) fn spec(_: SpecContext<'_>) -> ToolSpec {
    ToolSpec::new(
        "wait",
        "Pause the current conversation and wait for a while before thinking again. New \
         messages may end the wait early.",
    )
    .with_parameters(object_schema(
        vec![(
            "seconds",
            json!({"type": "integer", "description": "How many seconds to wait.", "minimum": 0}),
        )],
        &["seconds"],
    ))
}

pub(super) async fn run(
    ctx: &HandlerContext,
    invocation: &ToolInvocation,
    exec: &ToolExecutionContext,
) -> HandlerResult {
    let seconds = args::integer(&invocation.arguments, "seconds")?
        .unwrap_or(DEFAULT_SECONDS)
        .max(0) as u64;
    let max = ctx.config.max_consecutive_wait_count;
    let outcome = ctx
        .engine
        .enter_wait(
            session_of(invocation, exec),
            seconds,
            &invocation.call_id,
            max,
        )
        .await?;
    let result = if outcome.entered {
        ToolExecutionResult::success(
            &invocation.tool_name,
            format!(
                "The conversation loop is waiting for up to {seconds} seconds; new messages may \
                 end the wait early. Consecutive waits: {}/{}.",
                outcome.consecutive, outcome.max
            ),
        )
        .with_metadata("wait_seconds", seconds)
    } else {
        ToolExecutionResult::success(
            &invocation.tool_name,
            format!(
                "The limit of {} consecutive waits is reached, so this wait is not entered: \
                 nothing followed the repeated waits, and the conversation now rests.",
                outcome.max
            ),
        )
        .with_metadata("wait_limit_reached", true)
        .with_metadata("wait_rest", true)
    };
    Ok(result
        .with_metadata("pause_execution", true)
        .with_metadata("consecutive_wait_count", outcome.consecutive)
        .with_metadata("max_consecutive_wait_count", outcome.max))
}
