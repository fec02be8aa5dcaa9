//! `[store]`: where the host keeps state that several hosts may share (the built-in store, the
//! plugins' key-value store, chat-session state): embedded SQLite and memory, or a PostgreSQL
//! database.

use serde::{Deserialize, Serialize};

/// Which backend holds the shared state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StoreBackend {
    /// The built-in store in `[builtin] database`, the plugins' key-value store in
    /// `data_dir/plugin_kv.sqlite3`, session state in the host's memory: one host alone.
    #[default]
    Sqlite,
    /// Everything in one PostgreSQL database, which several hosts can share.
    Postgres,
}

/// `[store]`: the shared state's backend.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StoreSection {
    /// `"sqlite"` (the default) or `"postgres"`.
    pub backend: StoreBackend,
    /// The PostgreSQL connection string (`postgresql://user@host/db` or
    /// `host=/run/postgresql dbname=maitool`). Exactly one of `url` and `url_env` with
    /// `backend = "postgres"`.
    pub url: Option<String>,
    /// The environment variable that holds the connection string, to keep a password out of
    /// the file.
    pub url_env: Option<String>,
    /// The most connections the host opens to PostgreSQL.
    pub max_connections: usize,
}

impl Default for StoreSection {
    fn default() -> Self {
        Self {
            backend: StoreBackend::Sqlite,
            url: None,
            url_env: None,
            max_connections: 16,
        }
    }
}

/// Why `[store]` is invalid.
#[derive(Debug, thiserror::Error)]
pub enum StoreConfigError {
    /// PostgreSQL was chosen with no connection string.
    #[error("store: backend = \"postgres\" needs `url` or `url_env`")]
    MissingUrl,
    /// Both were given.
    #[error("store: set one of `url` and `url_env`, not both")]
    BothUrls,
    /// `url_env` names a variable that is unset or empty.
    #[error("store.url_env: environment variable {0} is not set")]
    UnsetEnv(String),
    /// The connection string does not parse.
    #[error("store.{key}: invalid PostgreSQL connection string: {source}")]
    BadUrl {
        /// `url` or `url_env`.
        key: &'static str,
        /// The parser's reason.
        source: tokio_postgres::Error,
    },
    /// A key only PostgreSQL reads was set for SQLite.
    #[error("store: `{0}` is set but backend is \"sqlite\"; set backend = \"postgres\" to use it")]
    UnusedKey(&'static str),
    /// No connections allowed.
    #[error("store.max_connections must be at least 1")]
    NoConnections,
}

impl StoreSection {
    /// The PostgreSQL connection string, checked to parse; `None` for SQLite.
    pub fn postgres_url(&self) -> Result<Option<String>, StoreConfigError> {
        match self.backend {
            StoreBackend::Sqlite => {
                if self.url.is_some() {
                    return Err(StoreConfigError::UnusedKey("url"));
                }
                if self.url_env.is_some() {
                    return Err(StoreConfigError::UnusedKey("url_env"));
                }
                Ok(None)
            }
            StoreBackend::Postgres => {
                if self.max_connections == 0 {
                    return Err(StoreConfigError::NoConnections);
                }
                let (key, url) = match (&self.url, &self.url_env) {
                    (Some(_), Some(_)) => return Err(StoreConfigError::BothUrls),
                    (None, None) => return Err(StoreConfigError::MissingUrl),
                    (Some(url), None) => ("url", url.clone()),
                    (None, Some(name)) => match std::env::var(name) {
                        Ok(url) if !url.trim().is_empty() => ("url_env", url),
                        _ => return Err(StoreConfigError::UnsetEnv(name.clone())),
                    },
                };
                url.parse::<tokio_postgres::Config>()
                    .map_err(|source| StoreConfigError::BadUrl { key, source })?;
                Ok(Some(url))
            }
        }
    }
}
