//! Typed access to the plugin's key-value store on the host (`kv.*` capabilities).

use maitool_protocol::JsonObject;
use maitool_protocol::capability::Capability;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::{HostClient, HostError};

/// This plugin's key-value store on the host: JSON values under string keys, private to the
/// plugin and kept across runner restarts (in the host's SQLite store when it has a data
/// directory, in memory otherwise).
///
/// Each method is one capability, which the operator must grant and the plugin declares:
/// all of them with `.capability("kv.*")`, or only those used
/// (`kv.get`, `kv.set`, `kv.delete`, `kv.list`). Get one from [`ToolContext::kv`],
/// [`PluginContext::kv`] or [`HostClient::kv`].
///
/// Every method fails with [`HostError::Denied`] when its capability is not granted, and
/// with [`HostError::Failed`] when the host's store fails or the host is gone.
///
/// ```
/// use maitool_sdk::prelude::*;
///
/// #[derive(Serialize, Deserialize)]
/// #[serde(crate = "maitool_sdk::serde")]
/// struct Note {
///     text: String,
///     stars: u8,
/// }
///
/// async fn keep(ctx: &ToolContext) -> Result<(), HostError> {
///     let kv = ctx.kv();
///     kv.set("note:today", &Note { text: "buy milk".into(), stars: 2 }).await?;
///     let note: Option<Note> = kv.get("note:today").await?;
///     assert_eq!(note.map(|n| n.stars), Some(2));
///     let keys = kv.list("note:").await?; // ["note:today"]
///     let existed = kv.delete("note:today").await?;
///     assert!(existed && keys.len() == 1);
///     Ok(())
/// }
/// ```
///
/// [`ToolContext::kv`]: crate::ToolContext::kv
/// [`PluginContext::kv`]: crate::PluginContext::kv
#[derive(Debug, Clone)]
pub struct Kv {
    host: HostClient,
}

impl Kv {
    pub(crate) fn new(host: HostClient) -> Self {
        Self { host }
    }

    /// The value stored under `key` (`kv.get`), deserialized into `T`; `None` when nothing
    /// is stored there (a stored JSON `null` reads as `None` too).
    ///
    /// # Errors
    ///
    /// [`HostError::Result`] when the stored value does not deserialize into `T`; see the
    /// [type documentation](Kv) for the others.
    pub async fn get<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>, HostError> {
        match self
            .call(Capability::KvGet.name(), [("key", key.into())])
            .await?
        {
            Value::Null => Ok(None),
            value => serde_json::from_value(value)
                .map(Some)
                .map_err(|err| HostError::Result {
                    capability: Capability::KvGet.name().into(),
                    reason: format!(
                        "the value under {key:?} is not a {}: {err}",
                        std::any::type_name::<T>()
                    ),
                }),
        }
    }

    /// Stores `value` under `key` (`kv.set`), replacing what was there.
    ///
    /// # Errors
    ///
    /// [`HostError::Arguments`] when `value` cannot be represented as JSON (a map with
    /// non-string keys, for example); see the [type documentation](Kv) for the others.
    pub async fn set<T: Serialize + ?Sized>(&self, key: &str, value: &T) -> Result<(), HostError> {
        let value = serde_json::to_value(value).map_err(|err| HostError::Arguments {
            capability: Capability::KvSet.name().into(),
            reason: format!("the value for {key:?} is not JSON: {err}"),
        })?;
        self.call(
            Capability::KvSet.name(),
            [("key", key.into()), ("value", value)],
        )
        .await
        .map(drop)
    }

    /// Deletes `key` (`kv.delete`); returns whether something was stored there.
    ///
    /// # Errors
    ///
    /// See the [type documentation](Kv).
    pub async fn delete(&self, key: &str) -> Result<bool, HostError> {
        let existed = self
            .call(Capability::KvDelete.name(), [("key", key.into())])
            .await?;
        Ok(existed.as_bool().unwrap_or(false))
    }

    /// The keys that start with `prefix` (`kv.list`), sorted; `""` lists every key.
    ///
    /// # Errors
    ///
    /// [`HostError::Result`] when the host's answer is not a list of strings; see the
    /// [type documentation](Kv) for the others.
    pub async fn list(&self, prefix: &str) -> Result<Vec<String>, HostError> {
        let keys = self
            .call(Capability::KvList.name(), [("prefix", prefix.into())])
            .await?;
        serde_json::from_value(keys).map_err(|err| HostError::Result {
            capability: Capability::KvList.name().into(),
            reason: format!("expected a list of keys: {err}"),
        })
    }

    async fn call<const N: usize>(
        &self,
        capability: &str,
        args: [(&str, Value); N],
    ) -> Result<Value, HostError> {
        let args: JsonObject = args
            .into_iter()
            .map(|(key, value)| (key.to_owned(), value))
            .collect();
        self.host.call_object(capability, args).await
    }
}
