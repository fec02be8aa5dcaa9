//! [`PersonBackend`]: person profiles.

use async_trait::async_trait;

use crate::builtin::engine::{PersonLookup, PersonProfile};
use crate::builtin::store::StoreError;

/// Who someone is, the names they go by, and traits the bot learned.
#[async_trait]
pub trait PersonBackend {
    /// Creates or replaces a person's profile, names and traits.
    async fn upsert_person(&self, person: PersonProfile) -> Result<(), StoreError>;
    /// Finds a person by id, else by name (name, nickname or alias, case-insensitive), else by
    /// platform account; traits are cut to `trait_limit` (0: all).
    async fn find_person(&self, lookup: PersonLookup) -> Result<Option<PersonProfile>, StoreError>;
}
