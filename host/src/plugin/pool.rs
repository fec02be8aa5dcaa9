//! Runner pools: a plugin served by members that dial in over TCP (TLS 1.3 off loopback)
//! instead of by a runner the host launches. The host never starts or stops a member: an
//! orchestrator does. Calls go to the member with the fewest calls outstanding
//! (`pool_members.rs`); a member that drains (`runner.draining`), leaves or stops answering
//! health checks gets no new call, and a call that finds no member waits for one as a call
//! waits for a restarting runner.
//!
//! `config.rs` the `[[pools]]` section, `token_entry.rs` its token digests, `token.rs` a
//! member's token proof, `handshake.rs` a
//! member's `runner.hello`, `member.rs` its connection, `handler.rs` its requests,
//! `rollout.rs` members that declare the plugin differently.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use parking_lot::RwLock;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio_util::codec::Framed;

mod config;
mod handler;
mod handshake;
mod member;
mod rollout;
mod token;
mod token_entry;

pub use config::{PoolConfig, PoolConfigError, PoolTls, check_pools};
pub use token_entry::{ExpiringToken, TokenEntry};

use super::config::ResolvedRunner;
use super::pool_members::PoolMembers;
use super::runner_shared::RunnerShared;
use super::shared::RuntimeShared;
use crate::transport::ServerTls;

/// Why a pool could not start.
#[derive(Debug, thiserror::Error)]
pub enum PoolStartError {
    /// The listen address could not be bound.
    #[error("pool {pool}: cannot listen on {listen}")]
    Bind {
        /// The pool.
        pool: String,
        /// The address.
        listen: SocketAddr,
        /// The OS's reason.
        source: std::io::Error,
    },
    /// Its plugin id is already served.
    #[error("pool {pool}: plugin {plugin} is already provided by runner {owner}")]
    Claimed {
        /// The pool.
        pool: String,
        /// The plugin id.
        plugin: String,
        /// Who provides it.
        owner: String,
    },
}

/// A running pool: its listener, its members, its settings.
pub(crate) struct Pool {
    pub name: String,
    pub plugin: String,
    /// The address actually bound (port 0 in the configuration picks one).
    pub local_addr: SocketAddr,
    /// The configuration; a reload replaces its tokens and settings in place.
    config: RwLock<PoolConfig>,
    pub members: Arc<PoolMembers>,
    /// The pool as the connection handlers see a runner: its name `pool:<name>`, its one
    /// plugin's settings.
    pub runner: Arc<RunnerShared>,
    next_id: AtomicU64,
    stop: watch::Sender<bool>,
    /// The plugin version whose declarations the registry holds (`rollout.rs`).
    pub version: Arc<rollout::RegisteredVersion>,
    /// Proofs already used on plain TCP (`token.rs`).
    replay: token::ReplayGuard,
}

impl Pool {
    /// The runner name a pool's plugin is owned under.
    pub(crate) fn owner_name(pool: &str) -> String {
        format!("pool:{pool}")
    }

    /// Binds the pool's address, claims its plugin and accepts members.
    pub(crate) async fn start(
        runtime: &Arc<RuntimeShared>,
        config: PoolConfig,
    ) -> Result<Arc<Pool>, PoolStartError> {
        let listener =
            TcpListener::bind(config.listen)
                .await
                .map_err(|source| PoolStartError::Bind {
                    pool: config.name.clone(),
                    listen: config.listen,
                    source,
                })?;
        let local_addr = listener
            .local_addr()
            .map_err(|source| PoolStartError::Bind {
                pool: config.name.clone(),
                listen: config.listen,
                source,
            })?;
        let owner = Self::owner_name(&config.name);
        runtime
            .try_claim(&config.plugin, &owner)
            .map_err(|claimed| PoolStartError::Claimed {
                pool: config.name.clone(),
                plugin: claimed.plugin_id,
                owner: claimed.owner,
            })?;
        let mut launch = ResolvedRunner::maitool(owner, "");
        launch.plugins = BTreeMap::from([(config.plugin.clone(), config.settings.clone())]);
        let members = Arc::new(PoolMembers::new(config.name.clone()));
        let (stop, _) = watch::channel(false);
        let pool = Arc::new(Pool {
            name: config.name.clone(),
            plugin: config.plugin.clone(),
            local_addr,
            config: RwLock::new(config),
            members: members.clone(),
            runner: Arc::new(RunnerShared::new(launch)),
            next_id: AtomicU64::new(1),
            stop,
            version: Arc::default(),
            replay: token::ReplayGuard::default(),
        });
        runtime.add_pool(&pool.plugin, members);
        tracing::info!(pool = %pool.name, plugin_id = %pool.plugin, listen = %local_addr, tls = pool.config.read().tls.is_some(), "pool listening for members");
        tokio::spawn(accept_loop(runtime.clone(), pool.clone(), listener));
        Ok(pool)
    }

    fn next_member_id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    /// The configuration as it is now.
    pub(crate) fn config(&self) -> PoolConfig {
        self.config.read().clone()
    }

    /// Takes a reloaded configuration of the same pool: the next connection is checked
    /// against its tokens and TLS files and gets its settings. Members connected stay.
    pub(crate) fn reconfigure(&self, config: PoolConfig) {
        self.runner.set_settings(BTreeMap::from([(
            config.plugin.clone(),
            config.settings.clone(),
        )]));
        *self.config.write() = config;
    }

    /// Stops accepting, disconnects every member and withdraws the pool's plugin.
    pub(crate) fn stop(&self, runtime: &RuntimeShared) {
        let _ = self.stop.send(true);
        runtime.remove_pool(&self.plugin);
        runtime.withdraw_runner(&Self::owner_name(&self.name));
    }
}

async fn accept_loop(runtime: Arc<RuntimeShared>, pool: Arc<Pool>, listener: TcpListener) {
    let mut stop = pool.stop.subscribe();
    let mut backoff = crate::accept::AcceptBackoff::new("a pool listener");
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = stop.changed() => return,
        };
        match accepted {
            Ok((tcp, peer)) => {
                backoff.succeeded();
                tokio::spawn(connection(runtime.clone(), pool.clone(), tcp, peer));
            }
            Err(err) => {
                let pause = backoff.failed(&err);
                tokio::time::sleep(pause).await;
            }
        }
    }
}

/// One connection: transport (TLS or loopback TCP), handshake, then the member's life.
async fn connection(
    runtime: Arc<RuntimeShared>,
    pool: Arc<Pool>,
    tcp: tokio::net::TcpStream,
    peer: SocketAddr,
) {
    let config = pool.config();
    let limit = Duration::from_millis(runtime.config.handshake_timeout_ms);
    let tls = config.tls.as_ref().map(|tls| ServerTls {
        cert_file: tls.cert_file.clone(),
        key_file: tls.key_file.clone(),
        client_ca_file: tls.client_ca_file.clone(),
    });
    let accepted = match crate::transport::accept(tcp, peer, tls.as_ref(), limit).await {
        Ok(accepted) => accepted,
        Err(err) => {
            tracing::warn!(pool = %pool.name, "pool connection refused: {}", crate::error_text::chain(&err));
            return;
        }
    };
    let framed = Framed::new(accepted.stream, maitool_protocol::wire::frame_codec());
    let credentials = handshake::Credentials {
        binding: accepted.binding,
        replay: &pool.replay,
    };
    match handshake::handshake(framed, &config, credentials, limit).await {
        Ok((framed, hello)) => {
            let stop = pool.stop.subscribe();
            member::serve(runtime, pool, framed, hello, peer, stop).await;
        }
        Err(refused) => {
            tracing::warn!(pool = %pool.name, %peer, "pool member refused: {}", crate::error_text::chain(&refused));
        }
    }
}
