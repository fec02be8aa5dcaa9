//! `reply`: send a visible reply to a message of the current chat.
//!
//! The schema follows MaiBot: `msg_id`, `set_quote`, `reply_reference`, `reply_style`, plus
//! `expression_intent` in `vector_intent` mode and the rich-reply attachments (`attach_pic`,
//! `attach_emoji`, `attach_at`, `text_mode`) when rich replies are on. An engine that does not
//! write replies itself ([`EngineCapabilities::generates_reply_text`] false, like the default
//! store engine) gets the text in a `text` argument.
//!
//! [`EngineCapabilities::generates_reply_text`]: crate::builtin::engine::EngineCapabilities

use maitool_protocol::{
    JsonObject, ToolExecutionContext, ToolExecutionResult, ToolInvocation, ToolSpec,
};
use serde_json::{Value, json};

use super::format::object_schema;
use super::{HandlerContext, HandlerResult, ToolFailure, args, require_stream, session_of};
use crate::builtin::config::ExpressionSelectionMode;
use crate::builtin::engine::{ExpressionIntent, ImageRef, ReplyRequest, ReplyStyle};
use crate::builtin::entry::SpecContext;

pub(crate) fn spec(spec_ctx: SpecContext<'_>) -> ToolSpec {
    let config = spec_ctx.config;
    let writes_text = spec_ctx.engine.generates_reply_text;
    let mut properties = vec![
        (
            "msg_id",
            json!({"type": "string", "description": "The msg_id of the message to reply to."}),
        ),
        (
            "set_quote",
            json!({
                "type": "boolean",
                "description": "Send the reply as a quote of that message; useful when many \
                                people talk and the chat is busy.",
                "default": true,
            }),
        ),
        (
            "reply_reference",
            json!({
                "type": "string",
                "description": "Information that helps write the reply: the chat's state, \
                                relationships, facts, memories.",
            }),
        ),
        (
            "reply_style",
            json!({
                "type": "string",
                "description": "Optional. Length and manner of the reply; `normal` adds no \
                                extra requirement.",
                "enum": ReplyStyle::NAMES,
            }),
        ),
    ];
    let text_description = if writes_text {
        "Optional. The exact text to send; leave it out to have the reply written from your \
         current thinking."
    } else {
        "The text of the reply, exactly as it should be sent."
    };
    properties.push((
        "text",
        json!({"type": "string", "description": text_description}),
    ));
    if config.expression_selection_mode == ExpressionSelectionMode::VectorIntent {
        properties.push(("expression_intent", expression_intent_schema()));
    }
    if config.enable_rich_reply {
        properties.extend(rich_reply_properties());
    }
    let required: &[&str] = if writes_text || config.enable_rich_reply {
        &["msg_id"]
    } else {
        &["msg_id", "text"]
    };
    let description = if config.enable_rich_reply {
        "Send a visible reply in the chat. Text, images, an emoji and mentions can be combined \
         freely; with attachments the reply may also carry no text at all."
    } else {
        "Send a visible reply in the chat, based on your current thinking."
    };
    ToolSpec::new("reply", description).with_parameters(object_schema(properties, required))
}

fn expression_intent_schema() -> Value {
    let text = |description: &str| json!({"type": "string", "description": description});
    let list = |description: &str| json!({"type": "array", "description": description, "items": {"type": "string"}});
    json!({
        "type": "object",
        "description": "Optional. Structured intent for choosing the expression style; not the \
                        reply text. Fill it when the reply needs a particular tone, scene or \
                        phrasing, so the choice does not rest on keywords alone.",
        "properties": {
            "focus": text("The message, fragment or topic the expression should fit."),
            "reply_act": text("What the reply does: clarify, comfort, tease, ask back, set a boundary..."),
            "scene": text("The scene: troubleshooting, sharing a screenshot, joking, asking a price..."),
            "tone": text("The desired tone: relaxed, reliable, teasing, tactful, briefly agreeing..."),
            "prefer": list("Expression kinds or phrasing to prefer."),
            "avoid": list("Expression kinds, misreadings or conclusions to avoid."),
        },
    })
}

fn rich_reply_properties() -> Vec<(&'static str, Value)> {
    vec![
        (
            "attach_pic",
            json!({
                "type": "array",
                "description": "Optional. Images from the context to attach. Each item names \
                                msg_id + index, or media_index = tool_result:<call_id>:<n> for \
                                media returned by a tool.",
                "items": {
                    "type": "object",
                    "properties": {
                        "msg_id": {"type": "string", "description": "The message holding the image.", "default": ""},
                        "media_index": {"type": "string", "description": "A tool result media id such as tool_result:call_x:1; instead of msg_id.", "default": ""},
                        "index": {"type": "integer", "description": "Position of the image in the message, from 0.", "default": 0},
                    },
                },
                "default": [],
            }),
        ),
        (
            "attach_emoji",
            json!({
                "type": "string",
                "description": "Optional. Attach an emoji: an emotion or a description of it.",
                "default": "",
            }),
        ),
        (
            "attach_at",
            json!({
                "type": "array",
                "description": "Optional. Mention the senders of these messages (msg_ids).",
                "items": {"type": "string"},
                "default": [],
            }),
        ),
        (
            "text_mode",
            json!({
                "type": "string",
                "description": "Optional. Whether the reply carries text: auto decides by the \
                                scene; required always sends text; none sends only the \
                                attachments and needs at least one.",
                "enum": ["auto", "required", "none"],
                "default": "auto",
            }),
        ),
    ]
}

fn picture_refs(arguments: &JsonObject) -> Result<Vec<ImageRef>, ToolFailure> {
    let Some(items) = arguments.get("attach_pic").filter(|value| !value.is_null()) else {
        return Ok(Vec::new());
    };
    let Value::Array(items) = items else {
        return Err(ToolFailure::new(
            "argument `attach_pic` must be an array of objects",
        ));
    };
    let mut refs = Vec::with_capacity(items.len());
    for (position, item) in items.iter().enumerate() {
        let Value::Object(item) = item else {
            return Err(ToolFailure::new(format!(
                "argument `attach_pic` item {position} must be an object"
            )));
        };
        refs.push(super::send_image::image_ref(item).map_err(|failure| {
            ToolFailure::new(format!("attach_pic item {position}: {}", failure.message))
        })?);
    }
    Ok(refs)
}

pub(super) async fn run(
    ctx: &HandlerContext,
    invocation: &ToolInvocation,
    exec: &ToolExecutionContext,
) -> HandlerResult {
    let arguments = &invocation.arguments;
    let Some(target) = args::string(arguments, "msg_id")? else {
        return Err(ToolFailure::new("reply needs a valid `msg_id` argument"));
    };
    let stream = require_stream("reply", invocation, exec)?;
    let set_quote = args::boolean(arguments, "set_quote")?.unwrap_or(true);
    let reply_style = args::string(arguments, "reply_style")?
        .map(|style| style.parse::<ReplyStyle>())
        .transpose()
        .map_err(ToolFailure::new)?;
    let rich = ctx.config.enable_rich_reply;
    // Attachments are ignored unless rich replies are on, as in MaiBot.
    let (attach_pics, attach_emoji, attach_at, text_mode) = if rich {
        let text_mode = args::string(arguments, "text_mode")?
            .map(|mode| mode.to_ascii_lowercase())
            .filter(|mode| ["auto", "required", "none"].contains(&mode.as_str()))
            .unwrap_or_else(|| "auto".to_owned());
        (
            picture_refs(arguments)?,
            args::string(arguments, "attach_emoji")?,
            args::string_list(arguments, "attach_at")?,
            text_mode,
        )
    } else {
        (Vec::new(), None, Vec::new(), "auto".to_owned())
    };
    let has_attachments =
        !attach_pics.is_empty() || attach_emoji.is_some() || !attach_at.is_empty();
    if text_mode == "none" && !has_attachments {
        return Err(ToolFailure::new(
            "text_mode=none needs at least one image, emoji or mention attachment",
        ));
    }
    let text = if text_mode == "none" {
        None
    } else {
        args::string(arguments, "text")?
    };
    if text.is_none() && !ctx.engine.capabilities().generates_reply_text && text_mode != "none" {
        return Err(ToolFailure::new(
            "reply needs a non-empty `text` argument: this engine sends the text it is given",
        ));
    }
    let expression_intent = match ctx.config.expression_selection_mode {
        ExpressionSelectionMode::VectorIntent => args::object(arguments, "expression_intent")?
            .map(|intent| {
                serde_json::from_value::<ExpressionIntent>(Value::Object(intent.clone()))
                    .map_err(|err| ToolFailure::new(format!("argument `expression_intent`: {err}")))
            })
            .transpose()?,
        ExpressionSelectionMode::Classic => None,
    };
    let request = ReplyRequest {
        session_id: session_of(invocation, exec).to_owned(),
        stream_id: stream.to_owned(),
        target_message_id: target.clone(),
        text,
        set_quote: set_quote && ctx.config.enable_reply_quote,
        reply_style,
        reply_reference: args::string(arguments, "reply_reference")?.unwrap_or_default(),
        expression_intent,
        attach_pics,
        attach_emoji,
        attach_at,
        reasoning: if exec.reasoning.is_empty() {
            invocation.reasoning.clone()
        } else {
            exec.reasoning.clone()
        },
    };
    let sent = ctx.engine.send_reply(request).await?;
    let mut content = format!(
        "Reply sent as message {} to message {target}",
        sent.message_id
    );
    if !sent.text.is_empty() {
        content.push_str(&format!(": {}", sent.text));
    }
    let structured =
        serde_json::to_value(&sent).map_err(|err| ToolFailure::new(err.to_string()))?;
    Ok(ToolExecutionResult::success(&invocation.tool_name, content)
        .with_structured(structured)
        .with_metadata("reply_message_id", sent.message_id.as_str()))
}
