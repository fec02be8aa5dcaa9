//! `switch_chat`: move attention to another existing chat, bringing its newest unread
//! messages along.

use maitool_protocol::{ToolExecutionContext, ToolExecutionResult, ToolInvocation, ToolSpec};
use serde_json::json;

use super::format::{message_line, object_schema};
use super::{HandlerContext, HandlerResult, ToolFailure, args, session_of, stream_of};
use crate::builtin::engine::{ChatTarget, ChatType, SwitchChatRequest};
use crate::builtin::entry::SpecContext;

/// At most this many unread messages come along.
const MAX_UNREAD: usize = 20;

pub(crate) fn spec(_: SpecContext<'_>) -> ToolSpec {
    ToolSpec::new(
        "switch_chat",
        "Switch to another existing chat that you are not focused on. Give chat_id, or \
         platform + id + type. When more than 20 unread messages are waiting there, only the \
         newest 20 come along.",
    )
    .with_parameters(object_schema(
        vec![
            ("chat_id", json!({"type": "string", "description": "The chat (stream) id."})),
            ("platform", json!({"type": "string", "description": "Platform of the chat, with id and type."})),
            ("id", json!({"type": "string", "description": "Group id or user id of the chat, with platform and type."})),
            (
                "type",
                json!({"type": "string", "description": "Chat type, with platform and id.", "enum": ["group", "private"]}),
            ),
        ],
        &[],
    ))
}

fn target(invocation: &ToolInvocation) -> Result<ChatTarget, ToolFailure> {
    let arguments = &invocation.arguments;
    if let Some(chat_id) = args::string(arguments, "chat_id")? {
        return Ok(ChatTarget::StreamId(chat_id));
    }
    let platform = args::string(arguments, "platform")?;
    let id = args::string(arguments, "id")?;
    let chat_type = args::string(arguments, "type")?;
    match (platform, id, chat_type) {
        (Some(platform), Some(id), Some(chat_type)) => Ok(ChatTarget::Address {
            platform,
            id,
            chat_type: chat_type.parse::<ChatType>().map_err(ToolFailure::new)?,
        }),
        _ => Err(ToolFailure::new(
            "switch_chat needs `chat_id`, or all of `platform`, `id` and `type`",
        )),
    }
}

pub(super) async fn run(
    ctx: &HandlerContext,
    invocation: &ToolInvocation,
    exec: &ToolExecutionContext,
) -> HandlerResult {
    let (session, stream) = (session_of(invocation, exec), stream_of(invocation, exec));
    if !ctx
        .config
        .focus_enabled(session, stream, exec.is_group_chat)
    {
        return Err(ToolFailure::new(
            "switch_chat needs focus mode, which is not enabled for this chat",
        ));
    }
    let switched = ctx
        .engine
        .switch_chat(SwitchChatRequest {
            session_id: session.to_owned(),
            from_stream_id: stream.to_owned(),
            target: target(invocation)?,
            max_unread: MAX_UNREAD,
        })
        .await?;
    let name = if switched.stream.name.is_empty() {
        String::new()
    } else {
        format!(" ({})", switched.stream.name)
    };
    let mut content = format!(
        "Switched to chat {}{name}. {} unread message(s)",
        switched.stream.stream_id, switched.unread_total
    );
    if switched.messages.is_empty() {
        content.push('.');
    } else {
        content.push_str(&format!(
            "; the newest {}, oldest first:",
            switched.messages.len()
        ));
        for message in &switched.messages {
            content.push('\n');
            content.push_str(&message_line(message));
        }
    }
    let to = switched.stream.stream_id.clone();
    Ok(ToolExecutionResult::success(&invocation.tool_name, content)
        .with_structured(json!(switched))
        // The rest of the batch was planned for the old chat.
        .with_metadata("pause_execution", true)
        .with_metadata("switch_chat", json!({"from": stream, "to": to})))
}
