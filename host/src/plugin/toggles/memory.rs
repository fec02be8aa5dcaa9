//! [`LocalToggles`]: toggles live in this host's component registry only (the default).

use async_trait::async_trait;

use super::{DisabledComponent, ToggleError, ToggleStore};

/// No persistence: the registry's map is the whole state, as for one host alone.
#[derive(Debug, Default, Clone, Copy)]
pub struct LocalToggles;

#[async_trait]
impl ToggleStore for LocalToggles {
    async fn load(&self) -> Result<Option<Vec<DisabledComponent>>, ToggleError> {
        Ok(None)
    }

    async fn save(
        &self,
        _full_name: &str,
        _session_id: Option<&str>,
        _enabled: bool,
    ) -> Result<(), ToggleError> {
        Ok(())
    }
}
