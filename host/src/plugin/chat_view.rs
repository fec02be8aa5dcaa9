//! The chat a call is made in, as the component registry's availability rules read it.

use maitool_protocol::{ToolAvailabilityContext, ToolExecutionContext};

/// The fields of a context that decide whether a plugin component is enabled, borrowed.
///
/// Routing a call checks availability in the caller's [`ToolExecutionContext`]; deriving a
/// [`ToolAvailabilityContext`] from it copied five strings for every call, although the
/// check only reads them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ChatView<'a> {
    pub(crate) session_id: &'a str,
    pub(crate) group_id: &'a str,
    pub(crate) platform: &'a str,
    pub(crate) is_group_chat: Option<bool>,
}

impl<'a> From<&'a ToolAvailabilityContext> for ChatView<'a> {
    fn from(ctx: &'a ToolAvailabilityContext) -> Self {
        ChatView {
            session_id: &ctx.session_id,
            group_id: &ctx.group_id,
            platform: &ctx.platform,
            is_group_chat: ctx.is_group_chat,
        }
    }
}

impl<'a> From<&'a ToolExecutionContext> for ChatView<'a> {
    fn from(ctx: &'a ToolExecutionContext) -> Self {
        ChatView {
            session_id: &ctx.session_id,
            group_id: &ctx.group_id,
            platform: &ctx.platform,
            is_group_chat: ctx.is_group_chat,
        }
    }
}
