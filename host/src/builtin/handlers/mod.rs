//! The built-in tools: one file per tool, each with its spec builder and handler.

mod args;
mod fetch_history;
mod finish;
mod format;
mod query_memory;
mod query_person_profile;
mod reply;
mod send_emoji;
mod send_image;
mod switch_chat;
mod tool_search;
mod view_forward_message;
mod wait;

#[cfg(test)]
mod tests;

use futures::future::BoxFuture;
use maitool_protocol::{ToolExecutionContext, ToolInvocation};

pub(crate) use super::handler::{HandlerContext, HandlerResult, ToolFailure};

pub(crate) use format::datetime;

/// The session of a call: the execution context's, else the invocation's.
pub(crate) fn session_of<'a>(
    invocation: &'a ToolInvocation,
    ctx: &'a ToolExecutionContext,
) -> &'a str {
    if ctx.session_id.is_empty() {
        &invocation.session_id
    } else {
        &ctx.session_id
    }
}

/// The stream of a call: the execution context's, else the invocation's.
pub(crate) fn stream_of<'a>(
    invocation: &'a ToolInvocation,
    ctx: &'a ToolExecutionContext,
) -> &'a str {
    if ctx.stream_id.is_empty() {
        &invocation.stream_id
    } else {
        &ctx.stream_id
    }
}

/// The stream of a call, which tools talking to a chat need.
pub(crate) fn require_stream<'a>(
    tool: &str,
    invocation: &'a ToolInvocation,
    ctx: &'a ToolExecutionContext,
) -> Result<&'a str, ToolFailure> {
    let stream = stream_of(invocation, ctx);
    if stream.trim().is_empty() {
        return Err(ToolFailure::new(format!(
            "{tool} needs a chat: the call has no stream_id"
        )));
    }
    Ok(stream)
}

/// Each tool's [`Handler`]: its module's `async fn run`, boxed.
macro_rules! handlers {
    ($($tool:ident),* $(,)?) => {$(
        pub(crate) fn $tool<'a>(
            ctx: &'a HandlerContext,
            invocation: &'a ToolInvocation,
            exec: &'a ToolExecutionContext,
        ) -> BoxFuture<'a, HandlerResult> {
            Box::pin($tool::run(ctx, invocation, exec))
        }
    )*};
}

handlers!(
    fetch_history,
    finish,
    query_memory,
    query_person_profile,
    reply,
    send_emoji,
    send_image,
    switch_chat,
    tool_search,
    view_forward_message,
    wait,
);

pub(crate) use fetch_history::spec as fetch_history_spec;
pub(crate) use finish::spec as finish_spec;
pub(crate) use query_memory::spec as query_memory_spec;
pub(crate) use query_person_profile::spec as query_person_profile_spec;
pub(crate) use reply::spec as reply_spec;
pub(crate) use send_emoji::spec as send_emoji_spec;
pub(crate) use send_image::spec as send_image_spec;
pub(crate) use switch_chat::spec as switch_chat_spec;
pub(crate) use tool_search::spec as tool_search_spec;
pub(crate) use view_forward_message::spec as view_forward_message_spec;
pub(crate) use wait::spec as wait_spec;
