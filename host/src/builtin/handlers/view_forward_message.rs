//! `view_forward_message`: open a forwarded-messages bundle one level at a time.

use maitool_protocol::{ToolExecutionContext, ToolExecutionResult, ToolInvocation, ToolSpec};
use serde_json::json;

use super::format::{datetime, object_schema};
use super::{HandlerContext, HandlerResult, ToolFailure, args, require_stream};
use crate::builtin::engine::ForwardView;
use crate::builtin::entry::SpecContext;

pub(crate) fn spec(_: SpecContext<'_>) -> ToolSpec {
    ToolSpec::new(
        "view_forward_message",
        "Open a forwarded-messages bundle by msg_id, one level at a time. The first call shows \
         the top level; for a nested bundle, call again with the path shown in the result.",
    )
    .with_parameters(object_schema(
        vec![
            (
                "msg_id",
                json!({"type": "string", "description": "The message carrying the forwarded bundle."}),
            ),
            (
                "path",
                json!({
                    "type": "array",
                    "description": "Positions of nested bundles to walk into, from the top level.",
                    "items": {"type": "integer", "minimum": 0},
                }),
            ),
        ],
        &["msg_id"],
    ))
}

fn render(view: &ForwardView) -> String {
    let mut text = format!(
        "Forwarded messages in {} at path {:?} ({} message(s)):",
        view.msg_id,
        view.path,
        view.nodes.len()
    );
    for (position, node) in view.nodes.iter().enumerate() {
        let sender = if node.sender_name.is_empty() {
            node.sender_id.as_str()
        } else {
            node.sender_name.as_str()
        };
        let time = node
            .time
            .map(|time| format!(" {}", datetime(time)))
            .unwrap_or_default();
        text.push_str(&format!(
            "\n[{position}]{time} {sender}: {}",
            node.text.trim()
        ));
        if node.image_count > 0 {
            text.push_str(&format!(" ({} image(s))", node.image_count));
        }
        if !node.forward.is_empty() {
            let mut path = view.path.clone();
            path.push(position);
            text.push_str(&format!(
                " [nested forwarded bundle of {} message(s); open it with path {path:?}]",
                node.forward.len()
            ));
        }
    }
    text
}

pub(super) async fn run(
    ctx: &HandlerContext,
    invocation: &ToolInvocation,
    exec: &ToolExecutionContext,
) -> HandlerResult {
    let Some(msg_id) = args::string(&invocation.arguments, "msg_id")? else {
        return Err(ToolFailure::new("view_forward_message needs a `msg_id`"));
    };
    let path = args::index_list(&invocation.arguments, "path")?;
    let stream = require_stream("view_forward_message", invocation, exec)?;
    let view = ctx
        .engine
        .view_forward_message(stream, &msg_id, &path)
        .await?;
    Ok(
        ToolExecutionResult::success(&invocation.tool_name, render(&view))
            .with_structured(json!(view)),
    )
}
