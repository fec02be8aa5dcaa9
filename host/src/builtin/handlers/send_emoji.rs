//! `send_emoji`: send an emoji from the library to express an emotion.

use maitool_protocol::{
    ToolContentItem, ToolExecutionContext, ToolExecutionResult, ToolInvocation, ToolSpec,
};
use serde_json::json;

use super::format::object_schema;
use super::{HandlerContext, HandlerResult, ToolFailure, args, require_stream, session_of};
use crate::builtin::engine::{EmojiMatch, EmojiQuery, ImageData};
use crate::builtin::entry::SpecContext;

pub(crate) fn spec(_: SpecContext<'_>) -> ToolSpec {
    ToolSpec::new(
        "send_emoji",
        "Send an emoji (a sticker image) to express an emotion and take part in the chat.",
    )
    .with_parameters(object_schema(
        vec![
            (
                "emotion",
                json!({"type": "string", "description": "Optional. The emotion to express, e.g. happy, confused."}),
            ),
            (
                "description",
                json!({"type": "string", "description": "Optional. What the emoji should show."}),
            ),
        ],
        &[],
    ))
}

pub(super) async fn run(
    ctx: &HandlerContext,
    invocation: &ToolInvocation,
    exec: &ToolExecutionContext,
) -> HandlerResult {
    let query = EmojiQuery {
        emotion: args::string(&invocation.arguments, "emotion")?,
        description: args::string(&invocation.arguments, "description")?,
    };
    let stream = require_stream("send_emoji", invocation, exec)?;
    let Some(emoji) = ctx.engine.pick_emoji(query).await? else {
        return Err(ToolFailure::new("the emoji library is empty"));
    };
    let sent = ctx
        .engine
        .send_image(
            session_of(invocation, exec),
            stream,
            ImageData {
                mime_type: emoji.mime_type.clone(),
                data: emoji.data.clone(),
                description: emoji.description.clone(),
            },
        )
        .await?;
    let (matched_by, matched_emotion) = match &emoji.matched {
        EmojiMatch::Emotion(emotion) => ("emotion", emotion.as_str()),
        EmojiMatch::Text(_) => ("text", ""),
        EmojiMatch::Random => ("random", ""),
    };
    let label = if emoji.description.is_empty() {
        "an emoji".to_owned()
    } else {
        emoji.description.clone()
    };
    let mut content = format!("Emoji sent: {label}");
    if !emoji.emotions.is_empty() {
        content.push_str(&format!(" (emotions: {})", emoji.emotions.join(", ")));
    }
    let item =
        ToolContentItem::image(emoji.data, emoji.mime_type).with_description(&emoji.description);
    Ok(ToolExecutionResult::success(&invocation.tool_name, content)
        .with_item(item)
        .with_structured(json!({
            "success": true,
            "message_id": sent.message_id,
            "emoji_id": emoji.id,
            "description": emoji.description,
            "emotions": emoji.emotions,
            "matched_by": matched_by,
            "matched_emotion": matched_emotion,
        })))
}
