//! The unified tool registry: one ordered list of [`ToolProvider`]s behind which every tool
//! source (plugins, built-ins, MCP servers) is listed and invoked.
//!
//! Semantics follow MaiBot's `ToolRegistry` (reference section 1.3), with its quirks fixed:
//! closing continues past a failing provider (Q1), and routing goes through an index instead
//! of re-listing every provider per call (Q2, see `routing.rs`).
//!
//! The registry is `Send + Sync` and meant to be shared behind an `Arc`; every method takes
//! `&self`. The providers live in an immutable snapshot swapped on change, so listing and
//! routing never hold a lock across an `.await`.

mod aliases;
mod arguments;
mod changes;
mod coerce;
mod guard;
mod listing;
mod output;
mod routing;
mod slots;

#[cfg(test)]
mod tests;

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use futures::future::join_all;
use parking_lot::{Mutex, RwLock};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::hook::HookInvoker;
use crate::metrics::ToolMetrics;
use crate::provider::{ToolProvider, ToolSetVersion};
use guard::unbounded;
use routing::RoutingIndex;
use slots::{ProviderSlot, Snapshot};

/// How long the registry waits for a provider's metadata calls (`list_tools`,
/// `declared_tool_names`, `is_available`) by default. A hung provider is then skipped instead
/// of stalling every listing and invocation. Tool invocations themselves have no limit here.
pub const DEFAULT_METADATA_TIMEOUT: Duration = Duration::from_secs(10);

/// A provider that failed to close, from [`ToolRegistry::close`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("provider {provider} failed to close: {cause}")]
pub struct CloseError {
    /// The provider's name.
    pub provider: String,
    /// Why it failed (its error, or its panic message).
    pub cause: String,
}

/// The unified tool registry. See the [module documentation](self).
pub struct ToolRegistry {
    inner: Arc<Inner>,
}

struct Inner {
    providers: RwLock<Arc<Snapshot>>,
    index: RwLock<Option<Arc<RoutingIndex>>>,
    /// Serialises routing-index rebuilds, which await providers.
    rebuild: tokio::sync::Mutex<()>,
    next_slot_id: AtomicU64,
    /// The registry-wide tool-set version.
    version: ToolSetVersion,
    /// Bumped on every change of the provider set, for the change forwarder.
    membership: watch::Sender<u64>,
    forwarder: Mutex<Option<JoinHandle<()>>>,
    metadata_timeout: Option<Duration>,
    /// Call statistics of every routed invocation.
    metrics: ToolMetrics,
    /// Name clashes already reported by `list_tools`.
    warned_duplicates: Mutex<std::collections::HashSet<listing::Rename>>,
    /// What runs the planner's request hook over a session's listing, once attached.
    hooks: RwLock<Option<Arc<dyn HookInvoker>>>,
}

impl Inner {
    fn snapshot(&self) -> Arc<Snapshot> {
        Arc::clone(&self.providers.read())
    }
}

impl Default for ToolRegistry {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let snapshot = self.inner.snapshot();
        f.debug_struct("ToolRegistry")
            .field(
                "providers",
                &snapshot
                    .slots
                    .iter()
                    .map(|slot| &*slot.name)
                    .collect::<Vec<_>>(),
            )
            .field("version", &self.inner.version.current())
            .finish()
    }
}

impl Drop for ToolRegistry {
    fn drop(&mut self) {
        // The forwarder holds only a weak reference and would end on its own; abort it so it
        // does not outlive the registry by even one wake-up.
        if let Some(task) = self.inner.forwarder.lock().take() {
            task.abort();
        }
    }
}

impl ToolRegistry {
    /// An empty registry with the [`DEFAULT_METADATA_TIMEOUT`].
    pub fn new() -> Self {
        Self::with_metadata_timeout(Some(DEFAULT_METADATA_TIMEOUT))
    }

    /// An empty registry that waits at most `limit` for a provider's metadata calls
    /// (`None`: wait forever). Needs a Tokio runtime with the time driver when set.
    pub fn with_metadata_timeout(limit: Option<Duration>) -> Self {
        Self {
            inner: Arc::new(Inner {
                providers: RwLock::new(Arc::new(Snapshot::default())),
                index: RwLock::new(None),
                rebuild: tokio::sync::Mutex::new(()),
                next_slot_id: AtomicU64::new(0),
                version: ToolSetVersion::new(),
                membership: watch::Sender::new(0),
                forwarder: Mutex::new(None),
                metadata_timeout: limit,
                metrics: ToolMetrics::new(),
                warned_duplicates: Mutex::new(std::collections::HashSet::new()),
                hooks: RwLock::new(None),
            }),
        }
    }

    /// Adds a provider at the end of the order.
    ///
    /// A provider with the same name is replaced and returned (not closed: the caller owns its
    /// shutdown). As in MaiBot, the replacement goes to the *end* of the order rather than
    /// taking the old one's place, so it loses first-wins ties it used to win.
    ///
    /// The provider's `provider_name()` and `tool_set_version()` are read once, here.
    pub fn register_provider(
        &self,
        provider: Arc<dyn ToolProvider>,
    ) -> Option<Arc<dyn ToolProvider>> {
        let id = self.inner.next_slot_id.fetch_add(1, Ordering::Relaxed);
        let slot = Arc::new(ProviderSlot::new(id, provider));
        let name = Arc::clone(&slot.name);
        let replaced = {
            let mut providers = self.inner.providers.write();
            let (snapshot, replaced) = providers.with(slot);
            *providers = Arc::new(snapshot);
            replaced
        };
        self.inner.providers_changed();
        tracing::info!(provider = %name, replaced = replaced.is_some(), "registered tool provider");
        replaced
    }

    /// Removes the provider called `name` and returns it (not closed), or `None` if absent.
    pub fn unregister_provider(&self, name: &str) -> Option<Arc<dyn ToolProvider>> {
        let removed = {
            let mut providers = self.inner.providers.write();
            let (snapshot, removed) = providers.without(name)?;
            *providers = Arc::new(snapshot);
            removed
        };
        self.inner.providers_changed();
        tracing::info!(provider = %name, "unregistered tool provider");
        Some(removed)
    }

    /// Lets the planner's request hook (`maisaka.planner.before_request`) shape what
    /// [`list_tools`](Self::list_tools) offers a session; see [`crate::hook::offer`].
    pub fn attach_hooks(&self, hooks: Arc<dyn HookInvoker>) {
        *self.inner.hooks.write() = Some(hooks);
    }

    /// Call counts, failures, timeouts and latencies of every tool this registry routed.
    pub fn metrics(&self) -> &ToolMetrics {
        &self.inner.metrics
    }

    /// The registered providers in order.
    pub fn providers(&self) -> Vec<Arc<dyn ToolProvider>> {
        let snapshot = self.inner.snapshot();
        snapshot
            .slots
            .iter()
            .map(|slot| Arc::clone(&slot.provider))
            .collect()
    }

    /// Closes every provider, concurrently, even when some fail or panic; returns (and logs)
    /// the failures in registration order. The providers stay registered.
    pub async fn close(&self) -> Vec<CloseError> {
        let snapshot = self.inner.snapshot();
        let closes = snapshot.slots.iter().map(|slot| async move {
            let outcome = unbounded(async { slot.provider.close().await }).await;
            outcome.err().map(|failure| CloseError {
                provider: slot.name.to_string(),
                cause: failure.to_string(),
            })
        });
        let errors: Vec<CloseError> = join_all(closes).await.into_iter().flatten().collect();
        for error in &errors {
            tracing::error!(provider = %error.provider, cause = %error.cause, "tool provider failed to close");
        }
        errors
    }
}
