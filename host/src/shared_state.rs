//! [`SharedState`]: where the state several hosts could share lives, as `[store]` chooses:
//! embedded (the built-in store in its SQLite file, the plugins' key-value store in SQLite
//! under the data directory, chat-session state in memory) or one PostgreSQL database. Each
//! state keeps its own seam (`builtin::store`, `plugin::kv`, `builtin::store_engine` sessions,
//! `builtin::discovery`); this only picks the backends.

use std::path::Path;
use std::sync::{Arc, Weak};
use std::time::Duration;

use crate::builtin::{
    Discovery, MemorySessionStates, PostgresDiscoveries, PostgresSessionStates, SessionStateStore,
    Store, StoreError,
};
use crate::config::{StoreConfigError, StoreSection};
use crate::plugin::{
    KvError, KvStore, LocalToggles, PluginRuntime, PostgresToggles, TOGGLE_CHANNEL, ToggleStore,
};
use crate::postgres::{Database, PgError};

/// How long a host waits before listening again after its LISTEN connection failed.
const LISTEN_RETRY: Duration = Duration::from_secs(1);

/// Why `[store]` could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum SharedStateError {
    /// The section is invalid.
    #[error(transparent)]
    Config(#[from] StoreConfigError),
    /// The PostgreSQL pool could not be built.
    #[error(transparent)]
    Postgres(#[from] PgError),
}

/// The backends of the state hosts can share.
#[derive(Debug, Clone)]
pub enum SharedState {
    /// This host alone: SQLite and memory.
    Embedded,
    /// A PostgreSQL database other hosts may use too.
    Postgres(Database),
}

impl SharedState {
    /// The backends `[store]` names. Does not connect: an unreachable database fails the
    /// operations that need it, not the host.
    pub fn from_config(section: &StoreSection) -> Result<SharedState, SharedStateError> {
        Ok(match section.postgres_url()? {
            None => SharedState::Embedded,
            Some(url) => SharedState::Postgres(Database::new(&url, section.max_connections)?),
        })
    }

    /// The PostgreSQL database, when that is the backend.
    pub fn database(&self) -> Option<&Database> {
        match self {
            SharedState::Embedded => None,
            SharedState::Postgres(database) => Some(database),
        }
    }

    /// The plugins' key-value store (embedded: `data_dir/plugin_kv.sqlite3`).
    pub async fn kv_store(&self, data_dir: &Path) -> Result<KvStore, KvError> {
        match self {
            SharedState::Embedded => KvStore::open(&data_dir.join("plugin_kv.sqlite3")).await,
            SharedState::Postgres(database) => Ok(KvStore::postgres(database.clone())),
        }
    }

    /// The built-in store (embedded: the SQLite file `database`, `[builtin] database`).
    pub async fn builtin_store(&self, database: &Path) -> Result<Store, StoreError> {
        match self {
            SharedState::Embedded => Store::open(database).await,
            SharedState::Postgres(database) => Ok(Store::postgres(database.clone())),
        }
    }

    /// The built-in engine's per-session loop state (waits, rests, rounds, focus).
    pub fn session_states(&self) -> Arc<dyn SessionStateStore> {
        match self {
            SharedState::Embedded => Arc::new(MemorySessionStates::default()),
            SharedState::Postgres(database) => {
                Arc::new(PostgresSessionStates::new(database.clone()))
            }
        }
    }

    /// A fresh `tool_search` discovery state over the backend (embedded: empty).
    pub fn discovery(&self) -> Arc<Discovery> {
        match self {
            SharedState::Embedded => Arc::new(Discovery::new()),
            SharedState::Postgres(database) => Arc::new(Discovery::with_store(Arc::new(
                PostgresDiscoveries::new(database.clone()),
            ))),
        }
    }
}

impl SharedState {
    /// Where component toggles are kept beyond this host's registry.
    pub fn toggle_store(&self) -> Arc<dyn ToggleStore> {
        match self {
            SharedState::Embedded => Arc::new(LocalToggles),
            SharedState::Postgres(database) => Arc::new(PostgresToggles::new(database.clone())),
        }
    }

    /// With PostgreSQL: keeps `runtime`'s component toggles equal to the database's, reading
    /// them when the host starts listening and again on each change any host announces
    /// (LISTEN/NOTIFY). A lost connection is listened again after a second, and
    /// everything read again, since notifications sent meanwhile are lost. Stops when the
    /// runtime is gone or the returned guard is dropped.
    pub fn watch_toggles(&self, runtime: &Arc<PluginRuntime>) -> Option<WatchGuard> {
        let database = self.database()?.clone();
        let runtime = Arc::downgrade(runtime);
        let task = tokio::spawn(async move {
            loop {
                match database.listen(&[TOGGLE_CHANNEL]).await {
                    Ok(mut listener) => {
                        if !reload_toggles(&runtime).await {
                            return;
                        }
                        while listener.next().await.is_some() {
                            if !reload_toggles(&runtime).await {
                                return;
                            }
                        }
                    }
                    Err(err) => tracing::warn!(
                        "component toggles of other hosts are not heard: {}",
                        crate::error_text::chain(&err)
                    ),
                }
                if runtime.strong_count() == 0 {
                    return;
                }
                tokio::time::sleep(LISTEN_RETRY).await;
            }
        });
        Some(WatchGuard::new(task.abort_handle()))
    }
}

/// Reads the toggles again; false once the runtime is gone.
async fn reload_toggles(runtime: &Weak<PluginRuntime>) -> bool {
    let Some(runtime) = runtime.upgrade() else {
        return false;
    };
    if let Err(err) = runtime.reload_toggles().await {
        tracing::warn!(
            "cannot read component toggles: {}",
            crate::error_text::chain(&err)
        );
    }
    true
}

/// Stops a watch of shared state when dropped.
#[derive(Debug)]
pub struct WatchGuard(tokio::task::AbortHandle);

impl WatchGuard {
    /// A guard that aborts `task` when dropped.
    pub(crate) fn new(task: tokio::task::AbortHandle) -> WatchGuard {
        WatchGuard(task)
    }
}

impl Drop for WatchGuard {
    fn drop(&mut self) {
        self.0.abort();
    }
}
