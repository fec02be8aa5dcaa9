//! The registered providers: an immutable, ordered snapshot swapped on every change, so that
//! readers (listing, routing) clone one `Arc` and never hold a lock across an `.await`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::arguments::ArgumentValidators;
use super::output::OutputValidators;
use crate::provider::{ToolProvider, ToolSetVersion};

/// One registration of a provider.
pub(super) struct ProviderSlot {
    /// Unique per registration: a replaced provider gets a new id even under the same name, so
    /// the routing index never reuses the declared names of the provider it replaced.
    pub(super) id: u64,
    /// Cached `provider_name()`, read once at registration.
    pub(super) name: Arc<str>,
    pub(super) provider: Arc<dyn ToolProvider>,
    /// Cached `tool_set_version()` handle, read once at registration.
    pub(super) version: Option<ToolSetVersion>,
    /// The provider version last folded into the registry-wide version.
    observed: AtomicU64,
    /// Compiled argument validators of the tools routed to this registration.
    pub(super) arguments: ArgumentValidators,
    pub(super) outputs: OutputValidators,
}

impl ProviderSlot {
    pub(super) fn new(id: u64, provider: Arc<dyn ToolProvider>) -> Self {
        let version = provider.tool_set_version();
        let observed = version.as_ref().map_or(0, ToolSetVersion::current);
        Self {
            id,
            name: Arc::from(provider.provider_name()),
            provider,
            version,
            observed: AtomicU64::new(observed),
            arguments: ArgumentValidators::default(),
            outputs: OutputValidators::default(),
        }
    }

    /// The provider's current version value, `None` when its declared tool set never changes.
    pub(super) fn current_version(&self) -> Option<u64> {
        self.version.as_ref().map(ToolSetVersion::current)
    }

    /// Records the current provider version; true when it moved since the last call.
    pub(super) fn observe_version(&self) -> bool {
        match self.current_version() {
            Some(current) => self.observed.swap(current, Ordering::AcqRel) != current,
            None => false,
        }
    }
}

/// The providers in registration order.
#[derive(Default)]
pub(super) struct Snapshot {
    pub(super) slots: Vec<Arc<ProviderSlot>>,
}

impl Snapshot {
    /// A new snapshot with `slot` appended and any provider of the same name removed; also
    /// returns the removed provider. MaiBot's `register_provider` removes then appends, so a
    /// replacement moves to the end of the order; this keeps that behaviour.
    pub(super) fn with(
        &self,
        slot: Arc<ProviderSlot>,
    ) -> (Snapshot, Option<Arc<dyn ToolProvider>>) {
        let mut replaced = None;
        let mut slots = Vec::with_capacity(self.slots.len() + 1);
        for existing in &self.slots {
            if existing.name == slot.name {
                replaced = Some(Arc::clone(&existing.provider));
            } else {
                slots.push(Arc::clone(existing));
            }
        }
        slots.push(slot);
        (Snapshot { slots }, replaced)
    }

    /// A new snapshot without the provider called `name`, or `None` when there is none.
    pub(super) fn without(&self, name: &str) -> Option<(Snapshot, Arc<dyn ToolProvider>)> {
        let position = self.slots.iter().position(|slot| &*slot.name == name)?;
        let mut slots = self.slots.clone();
        let removed = slots.remove(position);
        Some((Snapshot { slots }, Arc::clone(&removed.provider)))
    }
}
