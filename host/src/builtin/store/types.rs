//! The values the store takes and gives beyond the engine's own records: what both backends
//! share, so that neither depends on the other.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::time::now;

/// An image of a message as [`Store::message_images`](super::Store::message_images) reads it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MessageImage {
    /// MIME type, e.g. `image/png`.
    pub mime_type: String,
    /// Lower-case hex SHA-256 of the bytes.
    pub hash: String,
    /// What it shows, when known.
    pub description: String,
    /// The bytes, when asked for; empty otherwise.
    pub data: Vec<u8>,
}

/// Messages in a time window, as
/// [`Store::messages_in_window`](super::Store::messages_in_window) selects them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MessageWindow {
    /// One stream, or every stream when `None`.
    pub stream_id: Option<String>,
    /// Earliest time, Unix seconds (inclusive).
    pub start: f64,
    /// Latest time, Unix seconds (inclusive); no upper bound when `None`.
    pub end: Option<f64>,
    /// At most this many messages; 0 means all.
    pub limit: usize,
    /// With a limit: keep the earliest messages instead of the latest.
    pub earliest: bool,
    /// Leave out the bot's own messages.
    pub without_bot: bool,
}

/// Counts of stored memories.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MemoryStats {
    /// All memories.
    pub total: usize,
    /// Memories per kind.
    pub by_kind: BTreeMap<String, usize>,
}

/// An emoji to add to the library.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NewEmoji {
    /// Unique key: re-adding the same source replaces the entry (a file path, or any name).
    pub source: String,
    /// A file to read when the emoji is picked.
    pub path: Option<PathBuf>,
    /// The image itself, when not read from `path`.
    pub data: Option<Vec<u8>>,
    /// MIME type; sniffed from the bytes or the file extension when empty.
    pub mime_type: String,
    /// What it shows.
    pub description: String,
    /// Emotion tags.
    pub emotions: Vec<String>,
}

/// A fresh random id with a prefix, for messages the bot sends.
pub(super) fn fresh_id(prefix: &str) -> String {
    let mut bytes = [0u8; 8];
    // The OS generator failing is exceptional; the time still gives a unique enough id.
    if getrandom::fill(&mut bytes).is_err() {
        bytes = now().to_bits().to_le_bytes();
    }
    format!("{prefix}-{:016x}", u64::from_le_bytes(bytes))
}
