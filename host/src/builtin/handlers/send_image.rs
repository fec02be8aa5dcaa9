//! `send_image`: show the user an image from the context, by message and position or by the
//! media id of an earlier tool result.

use maitool_protocol::{
    JsonObject, ToolExecutionContext, ToolExecutionResult, ToolInvocation, ToolSpec,
};
use serde_json::json;

use super::format::object_schema;
use super::{HandlerContext, HandlerResult, ToolFailure, args, require_stream, session_of};
use crate::builtin::engine::ImageRef;
use crate::builtin::entry::SpecContext;

pub(crate) fn spec(_: SpecContext<'_>) -> ToolSpec {
    ToolSpec::new(
        "send_image",
        "Show the user an image from the context: the image at `index` of message `msg_id`, or \
         a media item a tool returned, by its media index tool_result:<call_id>:<item_index>.",
    )
    .with_parameters(object_schema(
        vec![
            (
                "msg_id",
                json!({"type": "string", "description": "The message holding the image.", "default": ""}),
            ),
            (
                "media_index",
                json!({
                    "type": "string",
                    "description": "A tool result media id such as tool_result:call_x:1; \
                                    instead of msg_id.",
                    "default": "",
                }),
            ),
            (
                "index",
                json!({
                    "type": "integer",
                    "description": "Position of the image in the message, from 0.",
                    "default": 0,
                    "minimum": 0,
                }),
            ),
        ],
        &[],
    ))
}

/// Reads `media_index`, else `msg_id` + `index`, into an image reference.
pub(crate) fn image_ref(arguments: &JsonObject) -> Result<ImageRef, ToolFailure> {
    if let Some(media_index) = args::string(arguments, "media_index")? {
        let well_formed = media_index
            .strip_prefix("tool_result:")
            .and_then(|rest| rest.rsplit_once(':'))
            .is_some_and(|(call, n)| !call.is_empty() && n.parse::<usize>().is_ok_and(|n| n >= 1));
        if !well_formed {
            return Err(ToolFailure::new(format!(
                "media_index `{media_index}` must look like tool_result:<call_id>:<n> (n from 1)"
            )));
        }
        return Ok(ImageRef::ToolMedia { media_index });
    }
    let Some(msg_id) = args::string(arguments, "msg_id")? else {
        return Err(ToolFailure::new(
            "name the image with `msg_id` (and `index`) or with `media_index`",
        ));
    };
    let index = args::integer(arguments, "index")?.unwrap_or(0);
    if index < 0 {
        return Err(ToolFailure::new(format!("index {index} must be 0 or more")));
    }
    Ok(ImageRef::Message {
        msg_id,
        index: index as usize,
    })
}

pub(super) async fn run(
    ctx: &HandlerContext,
    invocation: &ToolInvocation,
    exec: &ToolExecutionContext,
) -> HandlerResult {
    let image = image_ref(&invocation.arguments)?;
    let stream = require_stream("send_image", invocation, exec)?;
    let session = session_of(invocation, exec);
    let data = ctx.engine.resolve_image(session, stream, &image).await?;
    let (mime_type, bytes) = (data.mime_type.clone(), data.data.len());
    let sent = ctx.engine.send_image(session, stream, data).await?;
    Ok(ToolExecutionResult::success(
        &invocation.tool_name,
        format!("Sent {image} as message {}.", sent.message_id),
    )
    .with_structured(json!({
        "message_id": sent.message_id,
        "image": image,
        "mime_type": mime_type,
        "bytes": bytes,
    })))
}
