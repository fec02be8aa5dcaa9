//! [`KvBackend`]: what holds the plugins' key-value pairs.

use async_trait::async_trait;
use serde_json::Value;

use super::KvError;

/// Storage of key-value pairs namespaced by plugin id; values are JSON. Implementations:
/// SQLite (one host, the default) and PostgreSQL (hosts sharing a database).
#[async_trait]
pub trait KvBackend: Send + Sync + std::fmt::Debug {
    /// The value of `key`, or `None`.
    async fn get(&self, plugin_id: &str, key: &str) -> Result<Option<Value>, KvError>;
    /// Sets `key` to `value`.
    async fn set(&self, plugin_id: &str, key: &str, value: &Value) -> Result<(), KvError>;
    /// Deletes `key`; true when it existed.
    async fn delete(&self, plugin_id: &str, key: &str) -> Result<bool, KvError>;
    /// The plugin's keys that start with `prefix` (taken literally), sorted by their bytes.
    async fn list(&self, plugin_id: &str, prefix: &str) -> Result<Vec<String>, KvError>;
    /// Every pair of every plugin as `(plugin_id, key, value, updated_ms)`, for copying one
    /// store into another.
    async fn dump(&self) -> Result<Vec<KvRecord>, KvError>;
    /// Writes pairs as [`dump`](Self::dump) returned them, keeping their times.
    async fn load(&self, records: Vec<KvRecord>) -> Result<(), KvError>;
}

/// One stored pair, as [`KvBackend::dump`] returns it.
#[derive(Debug, Clone, PartialEq)]
pub struct KvRecord {
    /// The plugin.
    pub plugin_id: String,
    /// The key.
    pub key: String,
    /// The value's JSON text as stored.
    pub value: String,
    /// When it was last set, Unix milliseconds.
    pub updated_ms: i64,
}

/// Unix milliseconds now, the time a pair is recorded with.
pub(super) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}
