//! [`Database`]: the host's pool of connections to the shared PostgreSQL store.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Object, Pool, RecyclingMethod, Runtime};
use tokio::sync::OnceCell;
use tokio_postgres::NoTls;
use tokio_postgres::config::Host;

use super::error::PgError;
use super::migrate::migrate;

/// How long opening one connection may take before the operation fails as unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// A pool of connections to the shared PostgreSQL store. Cheap to clone (one pool per host).
///
/// Nothing connects until the first [`client`](Self::client): a host whose database is down
/// starts, serves what does not need it, and gets a connection once the server is back. The
/// first connection that succeeds brings the schema up to date.
#[derive(Clone)]
pub struct Database {
    inner: Arc<Inner>,
}

struct Inner {
    pool: Pool,
    config: tokio_postgres::Config,
    target: String,
    migrated: OnceCell<()>,
}

impl std::fmt::Debug for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Database")
            .field("target", &self.inner.target)
            .finish_non_exhaustive()
    }
}

impl Database {
    /// A pool of at most `max_connections` to the server `url` names, either a URL
    /// (`postgresql://user@host/db`) or key-value pairs (`host=/run/postgresql dbname=maitool`).
    /// Only parses: it does not connect.
    pub fn new(url: &str, max_connections: usize) -> Result<Database, PgError> {
        let mut config = tokio_postgres::Config::from_str(url).map_err(PgError::Url)?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        if config.get_application_name().is_none() {
            config.application_name("maitool");
        }
        let target = describe(&config);
        let manager = Manager::from_config(
            config.clone(),
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(max_connections.max(1))
            .runtime(Runtime::Tokio1)
            .create_timeout(Some(CONNECT_TIMEOUT))
            .wait_timeout(Some(CONNECT_TIMEOUT * 2))
            .build()
            .map_err(|error| PgError::Pool(deadpool_postgres::CreatePoolError::Build(error)))?;
        Ok(Database {
            inner: Arc::new(Inner {
                pool,
                config,
                target,
                migrated: OnceCell::new(),
            }),
        })
    }

    /// The parsed connection string, for a connection outside the pool.
    pub(super) fn config(&self) -> &tokio_postgres::Config {
        &self.inner.config
    }

    /// The server, database and user, as errors name them (never the password).
    pub fn target(&self) -> &str {
        &self.inner.target
    }

    /// A connection from the pool, the schema brought up to date first if this host has not
    /// done it yet.
    pub async fn client(&self) -> Result<Object, PgError> {
        let mut client = self
            .inner
            .pool
            .get()
            .await
            .map_err(|source| PgError::Unreachable {
                target: self.inner.target.clone(),
                source,
            })?;
        if self.inner.migrated.get().is_none() {
            self.inner
                .migrated
                .get_or_try_init(|| migrate(&mut client))
                .await?;
        }
        Ok(client)
    }

    /// Connects and migrates now, for a start-up that wants to report an unreachable server
    /// at once (the host still starts without it).
    pub async fn check(&self) -> Result<(), PgError> {
        self.client().await.map(drop)
    }
}

/// `user@host[:port]/dbname`, from the parsed configuration.
fn describe(config: &tokio_postgres::Config) -> String {
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .map(|host| match host {
            Host::Tcp(name) => name.clone(),
            Host::Unix(path) => path.display().to_string(),
        })
        .collect();
    let hosts = if hosts.is_empty() {
        "localhost".to_owned()
    } else {
        hosts.join(",")
    };
    let port = match config.get_ports() {
        [] => String::new(),
        ports => format!(
            ":{}",
            ports
                .iter()
                .map(u16::to_string)
                .collect::<Vec<_>>()
                .join(",")
        ),
    };
    format!(
        "{}@{hosts}{port}/{}",
        config.get_user().unwrap_or("(default user)"),
        config.get_dbname().unwrap_or("(default database)")
    )
}
