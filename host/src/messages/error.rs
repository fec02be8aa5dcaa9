//! Why the host refused a message: nothing ran and nothing was stored.

/// A message [`MessageFlow::receive`](super::MessageFlow::receive) refused before anything
/// ran.
#[derive(Debug, thiserror::Error)]
pub enum MessageError {
    /// No stream id.
    #[error("a message needs a stream id")]
    NoStream,
    /// No sender.
    #[error("a message needs the sender's user id")]
    NoUser,
    /// Neither text nor an image.
    #[error("the message is empty: give it text or an image")]
    Empty,
    /// A stream the store does not know, and nothing to open it with.
    #[error(
        "stream {0} is not in the store: give the message's platform to open it (and its group id in a group chat)"
    )]
    UnknownStream(String),
    /// The message contradicts the stream it names.
    #[error("stream {stream_id} is {known}; the message says {given}")]
    StreamMismatch {
        /// The stream.
        stream_id: String,
        /// What the store knows of it.
        known: String,
        /// What the message says instead.
        given: String,
    },
    /// A message id the store already has.
    #[error("message {0} is already in the store")]
    Duplicate(String),
    /// The store could not be read or written.
    #[error("the chat store failed")]
    Store(#[source] crate::builtin::StoreError),
}
