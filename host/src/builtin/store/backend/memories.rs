//! [`MemoryBackend`]: long-term memories with full-text search.

use async_trait::async_trait;

use crate::builtin::engine::{MemoryHit, MemoryQuery, NewMemory};
use crate::builtin::store::{MemoryStats, StoreError};

/// Memories, indexed over the CJK-aware word splitting of [`fts`](crate::builtin::store) so
/// that both backends find the same rows for a query (their scores differ).
#[async_trait]
pub trait MemoryBackend {
    /// Stores and indexes a memory; `None` when an identical one (same kind, content, person
    /// and chat) is already stored.
    async fn add_memory(&self, memory: NewMemory) -> Result<Option<i64>, StoreError>;
    /// Searches memories; docs/BUILTIN.md describes the modes.
    async fn search_memories(&self, query: MemoryQuery) -> Result<Vec<MemoryHit>, StoreError>;
    /// How many memories are stored, per kind.
    async fn memory_stats(&self) -> Result<MemoryStats, StoreError>;
}
