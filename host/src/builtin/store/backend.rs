//! The seam between the [`Store`](super::Store) handle and where the data lives: one trait per
//! concept, and [`StoreBackend`], every one of them together. Two backends implement them:
//! SQLite (`store/sqlite`, one host, the default) and PostgreSQL (`store/postgres`, hosts
//! sharing a database), chosen by `[store] backend`.

mod browse;
mod emojis;
mod maibot;
mod memories;
mod messages;
mod persons;
mod snapshot;
mod time;
mod tool_records;

pub use browse::BrowseBackend;
pub use emojis::EmojiBackend;
pub use maibot::MaibotBackend;
pub use memories::MemoryBackend;
pub use messages::MessageBackend;
pub use persons::PersonBackend;
pub use snapshot::SnapshotBackend;
pub use time::TimeBackend;
pub use tool_records::ToolRecordBackend;

/// Everything the built-in store does, as one object a [`Store`](super::Store) holds.
pub trait StoreBackend:
    MessageBackend
    + BrowseBackend
    + MemoryBackend
    + PersonBackend
    + EmojiBackend
    + ToolRecordBackend
    + MaibotBackend
    + TimeBackend
    + SnapshotBackend
    + Send
    + Sync
    + std::fmt::Debug
{
    /// Where the data lives, for logs and errors: a file path, `:memory:`, or the PostgreSQL
    /// server and database (never a password).
    fn location(&self) -> &str;
}
