//! `fetch_history`: messages of the current chat that exist but are not in the model's
//! context yet.
//!
//! The engine says what is in context through the execution context's metadata:
//! `context_message_ids`, an array of the msg_ids the model already sees. Those are left out;
//! the newest remaining messages of this chat (never another chat) come back, newest first.

use maitool_protocol::{
    JsonObject, ToolExecutionContext, ToolExecutionResult, ToolInvocation, ToolSpec,
};
use serde_json::{Value, json};

use super::format::{message_line, object_schema};
use super::{HandlerContext, HandlerResult, ToolFailure, args, require_stream, session_of};
use crate::builtin::CONTEXT_MESSAGE_IDS;
use crate::builtin::engine::HistoryQuery;
use crate::builtin::entry::SpecContext;

const DEFAULT_NUM: i64 = 10;
const MAX_NUM: i64 = 50;

pub(crate) fn spec(_: SpecContext<'_>) -> ToolSpec {
    ToolSpec::new(
        "fetch_history",
        "Fetch messages of the current chat that exist but are not in your context yet, newest \
         first, at most `num` of them. Cannot read other chats.",
    )
    .with_parameters(object_schema(
        vec![(
            "num",
            json!({
                "type": "integer",
                "description": "How many messages to fetch (1 to 50).",
                "default": DEFAULT_NUM,
                "minimum": 1,
                "maximum": MAX_NUM,
            }),
        )],
        &[],
    ))
}

/// The msg_ids listed under [`CONTEXT_MESSAGE_IDS`] in execution or invocation metadata.
fn context_ids(metadata: &[&JsonObject]) -> Result<Vec<String>, ToolFailure> {
    let mut ids = Vec::new();
    for metadata in metadata {
        match metadata.get(CONTEXT_MESSAGE_IDS) {
            None | Some(Value::Null) => {}
            Some(Value::Array(items)) => ids.extend(items.iter().filter_map(|item| match item {
                Value::String(id) => Some(id.clone()),
                Value::Number(id) => Some(id.to_string()),
                _ => None,
            })),
            Some(_) => {
                return Err(ToolFailure::new(format!(
                    "metadata `{CONTEXT_MESSAGE_IDS}` must be an array of message ids"
                )));
            }
        }
    }
    Ok(ids)
}

pub(super) async fn run(
    ctx: &HandlerContext,
    invocation: &ToolInvocation,
    exec: &ToolExecutionContext,
) -> HandlerResult {
    let session = session_of(invocation, exec);
    let stream = require_stream("fetch_history", invocation, exec)?;
    if !ctx
        .config
        .focus_enabled(session, stream, exec.is_group_chat)
    {
        return Err(ToolFailure::new(
            "fetch_history needs focus mode, which is not enabled for this chat",
        ));
    }
    let num = args::integer(&invocation.arguments, "num")?
        .unwrap_or(DEFAULT_NUM)
        .clamp(1, MAX_NUM) as usize;
    let exclude = context_ids(&[&exec.metadata, &invocation.metadata])?;
    let messages = ctx
        .engine
        .fetch_history(HistoryQuery {
            session_id: session.to_owned(),
            stream_id: stream.to_owned(),
            limit: num,
            exclude_message_ids: exclude,
        })
        .await?;
    let content = if messages.is_empty() {
        "No messages of this chat are outside your context.".to_owned()
    } else {
        let lines: Vec<String> = messages.iter().map(message_line).collect();
        format!(
            "{} message(s) of this chat not in your context, newest first:\n{}",
            messages.len(),
            lines.join("\n")
        )
    };
    Ok(ToolExecutionResult::success(&invocation.tool_name, content)
        .with_structured(json!({"num": num, "messages": messages})))
}
