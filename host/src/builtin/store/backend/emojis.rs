//! [`EmojiBackend`]: the emoji library.

use async_trait::async_trait;

use crate::builtin::engine::{Emoji, EmojiQuery};
use crate::builtin::store::{NewEmoji, StoreError};

/// Images with a description and emotion tags.
#[async_trait]
pub trait EmojiBackend {
    /// Adds an emoji, or replaces the one with the same source; returns its id.
    async fn add_emoji(&self, emoji: NewEmoji) -> Result<i64, StoreError>;
    /// A random emoji tagged with the requested emotion; else the best full-text match of the
    /// description and emotion; else a random one. `None` when the library is empty.
    async fn pick_emoji(&self, query: EmojiQuery) -> Result<Option<Emoji>, StoreError>;
    /// How many emojis the library holds.
    async fn emoji_count(&self) -> Result<usize, StoreError>;
    /// The whole library with its images, in the order emojis were added.
    async fn all_emojis(&self) -> Result<Vec<Emoji>, StoreError>;
    /// Removes an emoji by id; whether it existed.
    async fn delete_emoji(&self, id: i64) -> Result<bool, StoreError>;
}
