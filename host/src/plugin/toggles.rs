//! Where operator toggles of components (`maitool disable`, `component.disable`, the console)
//! are kept beyond the component registry's own map: nowhere else by default (one host), or
//! PostgreSQL, where every host on the database reads them and hears of each change.

mod memory;
mod postgres;

use async_trait::async_trait;

pub use self::memory::LocalToggles;
pub use self::postgres::{PostgresToggles, TOGGLE_CHANNEL};
use super::components::ComponentLookupError;
use crate::postgres::PgError;

/// A component switched off, globally (`session_id: None`) or for one session.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct DisabledComponent {
    /// `plugin_id.name`.
    pub full_name: String,
    /// The session, or `None` for everywhere.
    pub session_id: Option<String>,
}

/// Why a toggle was not applied.
#[derive(Debug, thiserror::Error)]
pub enum ToggleError {
    /// The name names no component, or several.
    #[error(transparent)]
    Lookup(#[from] ComponentLookupError),
    /// The shared store could not record it; nothing changed on this host either, so hosts
    /// do not disagree.
    #[error("component toggles are unavailable")]
    Store(#[from] PgError),
}

/// Persistence of component toggles.
#[async_trait]
pub trait ToggleStore: Send + Sync + std::fmt::Debug {
    /// Every component switched off, or `None` when this store keeps nothing beyond the
    /// registry's own map (which is then left as it is).
    async fn load(&self) -> Result<Option<Vec<DisabledComponent>>, ToggleError>;

    /// Records that `full_name` is now on or off, globally or for `session_id`.
    async fn save(
        &self,
        full_name: &str,
        session_id: Option<&str>,
        enabled: bool,
    ) -> Result<(), ToggleError>;
}
