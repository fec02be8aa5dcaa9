//! Typed plugin configuration: TOML from the operator, merged over the plugin's defaults,
//! validated, and swapped atomically on updates.

use std::any::{Any, TypeId};
use std::sync::Arc;

use maitool_protocol::JsonObject;
use parking_lot::RwLock;
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// A plugin's configuration type. The operator's values are merged over `Default::default()`
/// key by key (nested tables too), deserialized, then [`validate`](PluginConfig::validate)d.
/// Use `#[serde(deny_unknown_fields)]` to turn typos into errors. A configuration that does
/// not deserialize or validate is invalid: the plugin is loaded but paused (MaiBot's
/// `config_error` state: the host offers none of its tools and says why) until a valid one
/// arrives, and `on_load` runs then.
///
/// Declare it with [`Plugin::config`](crate::Plugin::config); read it in handlers with
/// [`ToolContext::config`](crate::ToolContext::config). The operator writes it in the host's
/// TOML configuration, under the plugin's `config` table.
///
/// ```
/// use maitool_sdk::prelude::*;
///
/// #[maitool_sdk::config]
/// #[serde(default, deny_unknown_fields)]
/// struct DiceConfig {
///     /// Largest die allowed.
///     max_sides: u32,
/// }
///
/// impl Default for DiceConfig {
///     fn default() -> Self {
///         Self { max_sides: 100 }
///     }
/// }
///
/// impl PluginConfig for DiceConfig {
///     fn validate(&self) -> Result<(), String> {
///         if self.max_sides < 2 {
///             return Err(format!("max_sides must be at least 2, got {}", self.max_sides));
///         }
///         Ok(())
///     }
/// }
///
/// let plugin = Plugin::new("examples.dice", "1.0.0").config::<DiceConfig>();
/// # let _ = plugin;
/// ```
pub trait PluginConfig:
    Serialize + DeserializeOwned + Default + JsonSchema + Send + Sync + 'static
{
    /// Checks values beyond their types. An error makes the configuration invalid, with this
    /// message: the plugin's tools are paused until a valid configuration arrives.
    fn validate(&self) -> Result<(), String> {
        Ok(())
    }
}

/// A new configuration delivered to [`Plugin::on_config_update`](crate::Plugin::on_config_update):
/// the operator changed the plugin's configuration and the host reloaded it.
#[derive(Debug)]
#[non_exhaustive]
pub struct ConfigUpdate<C> {
    /// The new configuration, merged over the defaults and validated. Handlers already see
    /// it when the hook runs.
    pub config: Arc<C>,
    /// The host's label for this configuration version.
    pub version: String,
}

type Parser = dyn Fn(&JsonObject) -> Result<Arc<dyn Any + Send + Sync>, String> + Send + Sync;

/// Holds the current typed configuration of one plugin.
pub(crate) struct ConfigSlot {
    parser: Option<Box<Parser>>,
    /// The declared configuration type and its name.
    pub(crate) kind: Option<(TypeId, &'static str)>,
    current: RwLock<Option<Arc<dyn Any + Send + Sync>>>,
    /// The configuration `apply` replaced, for `restore_previous`.
    previous: RwLock<Option<Arc<dyn Any + Send + Sync>>>,
    pub(crate) defaults: JsonObject,
    pub(crate) schema: JsonObject,
}

impl ConfigSlot {
    pub(crate) fn untyped() -> Self {
        Self {
            parser: None,
            kind: None,
            current: RwLock::new(None),
            previous: RwLock::new(None),
            defaults: JsonObject::new(),
            schema: JsonObject::new(),
        }
    }

    pub(crate) fn typed<C: PluginConfig>() -> Self {
        let defaults = match serde_json::to_value(C::default()) {
            Ok(serde_json::Value::Object(object)) => object,
            _ => JsonObject::new(),
        };
        let merge_base = defaults.clone();
        let parser = move |values: &JsonObject| -> Result<Arc<dyn Any + Send + Sync>, String> {
            let mut merged = merge_base.clone();
            merge_into(&mut merged, values);
            let config: C = serde_json::from_value(serde_json::Value::Object(merged))
                .map_err(|err| err.to_string())?;
            config.validate()?;
            Ok(Arc::new(config))
        };
        Self {
            parser: Some(Box::new(parser)),
            kind: Some((TypeId::of::<C>(), std::any::type_name::<C>())),
            current: RwLock::new(None),
            previous: RwLock::new(None),
            defaults,
            schema: crate::schema::schema_for::<C>(),
        }
    }

    /// Parses and installs a configuration; on error the previous one stays.
    pub(crate) fn apply(&self, values: &JsonObject) -> Result<(), String> {
        if let Some(parser) = &self.parser {
            let parsed = parser(values)?;
            let replaced = self.current.write().replace(parsed);
            *self.previous.write() = replaced;
        }
        Ok(())
    }

    /// Reinstalls the configuration the last [`apply`](Self::apply) replaced: the plugin's
    /// `on_config_update` refused the new one, and the host keeps the old settings.
    pub(crate) fn restore_previous(&self) {
        if let Some(previous) = self.previous.write().take() {
            *self.current.write() = Some(previous);
        }
    }

    pub(crate) fn get<C: Send + Sync + 'static>(&self) -> Option<Arc<C>> {
        let current = self.current.read().clone()?;
        current.downcast::<C>().ok()
    }
}

/// Deep-merges `overlay` into `base`: tables merge key by key, anything else replaces.
pub(crate) fn merge_into(base: &mut JsonObject, overlay: &JsonObject) {
    for (key, value) in overlay {
        match (base.get_mut(key), value) {
            (
                Some(serde_json::Value::Object(base_table)),
                serde_json::Value::Object(overlay_table),
            ) => {
                merge_into(base_table, overlay_table);
            }
            _ => {
                base.insert(key.clone(), value.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests;
