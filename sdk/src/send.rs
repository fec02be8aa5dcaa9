//! Typed messages to a chat stream (`send.*` capabilities).

use maitool_protocol::capability::Capability;
use serde::Deserialize;
use serde_json::json;

use crate::{HostClient, HostError};

/// Sends messages to one chat stream through the host. Get one from [`ToolContext::send`]
/// (the call's own stream) or [`HostClient::send`] (any stream).
///
/// Each method is one capability (`send.text`, ...), which the operator must grant and the
/// plugin declares with [`Plugin::capability`].
///
/// ```
/// use maitool_sdk::prelude::*;
///
/// async fn greet(ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
///     let sent = ctx.send().text("hello!").await?;
///     Ok(ToolOutput::text(format!("sent message {}", sent.message_id)))
/// }
/// ```
///
/// [`ToolContext::send`]: crate::ToolContext::send
/// [`Plugin::capability`]: crate::Plugin::capability
#[derive(Debug, Clone)]
pub struct Sender<'a> {
    host: HostClient,
    stream_id: &'a str,
}

/// What the host answers for a delivered message.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct SentMessage {
    /// The id the host's message sink gave the message (may be empty).
    pub message_id: String,
}

impl<'a> Sender<'a> {
    pub(crate) fn new(host: HostClient, stream_id: &'a str) -> Self {
        Self { host, stream_id }
    }

    /// The stream the messages go to.
    pub fn stream_id(&self) -> &str {
        self.stream_id
    }

    /// Sends a text message (`send.text`).
    ///
    /// # Errors
    ///
    /// * [`HostError::Denied`]: `send.text` is not declared or not granted.
    /// * [`HostError::Failed`]: the stream id or the text is empty (`E_BAD_PAYLOAD`), the
    ///   host could not deliver the message (`E_CAPABILITY_FAILED`), or the host is gone.
    pub async fn text(&self, text: impl Into<String>) -> Result<SentMessage, HostError> {
        let text: String = text.into();
        let answer = self
            .host
            .call(
                Capability::SendText.name(),
                json!({ "stream_id": self.stream_id, "text": text }),
            )
            .await?;
        serde_json::from_value(answer).map_err(|err| HostError::Result {
            capability: Capability::SendText.name().into(),
            reason: err.to_string(),
        })
    }
}
