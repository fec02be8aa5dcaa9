//! Where `send.*` deliver: the [`MessageSink`] an embedder provides, and the in-memory sink
//! used when nothing else is configured.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};

use async_trait::async_trait;
use maitool_protocol::BinaryData;
use parking_lot::Mutex;
use serde::Serialize;

use crate::builtin::Store;
use crate::builtin::engine::{ForwardNode, ImageData, NewMessage};

/// An image (or emoji) a plugin sends.
#[derive(Debug, Clone, PartialEq)]
pub struct OutgoingImage {
    /// MIME type, possibly empty when the plugin did not say.
    pub mime_type: String,
    /// The encoded image.
    pub data: BinaryData,
}

/// A message a plugin sends to a chat stream.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OutgoingMessage {
    /// Target stream.
    pub stream_id: String,
    /// `text`, `image`, `emoji`, `forward`, `hybrid`, `command` or `custom`.
    pub kind: String,
    /// The message as plain text: the text itself, an image's caption, or a readable
    /// rendering of a hybrid, forward, command or custom message.
    pub text: String,
    /// Images in order (one for `image` and `emoji`, any number for `hybrid`).
    #[serde(skip)]
    pub images: Vec<OutgoingImage>,
    /// The bundle of a `forward` message.
    #[serde(skip)]
    pub forward: Vec<ForwardNode>,
    /// The sending plugin.
    pub plugin_id: String,
}

/// Why a [`MessageSink`] did not deliver a message. The plugin that sent it gets the text,
/// sources included, as its failed `send.*` call.
#[derive(Debug, thiserror::Error)]
pub enum SinkError {
    /// The built-in store could not record the message.
    #[error(transparent)]
    Store(#[from] crate::builtin::StoreError),
    /// The sink refused the message, for the reason given.
    #[error("{0}")]
    Refused(String),
    /// A send hook or event handler stopped the message: it was not sent. The plugin's
    /// `send.*` answers `{success: false}`, as MaiBot's does.
    #[error("the message was stopped by {by} at {at}")]
    Stopped {
        /// The handler that stopped it (`plugin_id.name`).
        by: String,
        /// The hook or event (`post_send`, `send_service.before_send`).
        at: String,
    },
    /// The embedder's own error.
    #[error(transparent)]
    Other(Box<dyn std::error::Error + Send + Sync>),
}

impl SinkError {
    /// Wraps an embedder's own error, kept as it is (downcast it back through
    /// [`std::error::Error::source`] or by matching [`SinkError::Other`]).
    pub fn other(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        SinkError::Other(Box::new(error))
    }
}

/// Where `send.*` capabilities deliver. The embedding engine provides its own; the `maitool`
/// binary delivers into the built-in store's history so the built-in tools and `message.*`
/// see it.
#[async_trait]
pub trait MessageSink: Send + Sync + 'static {
    /// Delivers a message; returns its message id.
    async fn send(&self, message: OutgoingMessage) -> Result<String, SinkError>;
}

/// A sink that keeps the last messages in memory and logs them; used when nothing else is
/// configured.
#[derive(Debug, Default)]
pub struct MemorySink {
    messages: Mutex<VecDeque<OutgoingMessage>>,
    sent: AtomicU64,
}

impl MemorySink {
    const LIMIT: usize = 1000;

    /// Messages sent so far (most recent last, at most 1000).
    pub fn messages(&self) -> Vec<OutgoingMessage> {
        self.messages.lock().iter().cloned().collect()
    }
}

#[async_trait]
impl MessageSink for MemorySink {
    async fn send(&self, message: OutgoingMessage) -> Result<String, SinkError> {
        tracing::info!(stream_id = %message.stream_id, plugin_id = %message.plugin_id, kind = %message.kind, "message sent: {}", message.text);
        let mut messages = self.messages.lock();
        if messages.len() >= Self::LIMIT {
            messages.pop_front();
        }
        messages.push_back(message);
        // Ids stay unique after old messages are dropped.
        let id = self.sent.fetch_add(1, Ordering::Relaxed) + 1;
        Ok(format!("msg-{id}"))
    }
}

/// Delivers plugins' messages into the built-in store's history (as the bot, sender
/// `plugin:<id>`), so `fetch_history` and `message.*` see what plugins said. The `maitool`
/// binary's sink.
#[derive(Debug, Clone)]
pub struct StoreSink {
    store: Store,
}

impl StoreSink {
    /// A sink appending to `store`.
    pub fn new(store: Store) -> Self {
        Self { store }
    }
}

#[async_trait]
impl MessageSink for StoreSink {
    async fn send(&self, message: OutgoingMessage) -> Result<String, SinkError> {
        let images = message
            .images
            .into_iter()
            .map(|image| ImageData {
                mime_type: image.mime_type,
                data: image.data.0,
                description: String::new(),
            })
            .collect();
        let stored = self
            .store
            .append_message(NewMessage {
                stream_id: message.stream_id,
                sender_id: format!("plugin:{}", message.plugin_id),
                sender_name: message.plugin_id,
                is_bot: true,
                text: message.text,
                images,
                forward: message.forward,
                ..NewMessage::default()
            })
            .await?;
        Ok(stored.message_id)
    }
}
