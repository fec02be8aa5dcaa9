//! Typed plugin configuration: TOML from the operator, merged over the plugin's defaults,
//! validated, and swapped atomically on updates.

use std::any::Any;
use std::sync::Arc;

use maitool_protocol::JsonObject;
use parking_lot::RwLock;
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// A plugin's configuration type. The operator's values are merged over `Default::default()`
/// key by key (nested tables too), deserialized, then [`validate`](PluginConfig::validate)d.
/// Use `#[serde(deny_unknown_fields)]` to turn typos into load errors.
pub trait PluginConfig:
    Serialize + DeserializeOwned + Default + JsonSchema + Send + Sync + 'static
{
    /// Checks values beyond their types. An error fails the plugin's load with this message.
    fn validate(&self) -> Result<(), String> {
        Ok(())
    }
}

/// A configuration change delivered to `on_config_update`.
#[derive(Debug, Clone)]
pub struct ConfigUpdate {
    /// `self` for the plugin's own configuration.
    pub scope: String,
    /// The new raw values.
    pub config: JsonObject,
    /// The configuration version label.
    pub version: String,
}

type Parser = dyn Fn(&JsonObject) -> Result<Arc<dyn Any + Send + Sync>, String> + Send + Sync;

/// Holds the current typed configuration of one plugin.
pub(crate) struct ConfigSlot {
    parser: Option<Box<Parser>>,
    current: RwLock<Option<Arc<dyn Any + Send + Sync>>>,
    pub(crate) defaults: JsonObject,
    pub(crate) schema: JsonObject,
}

impl ConfigSlot {
    pub(crate) fn untyped() -> Self {
        Self {
            parser: None,
            current: RwLock::new(None),
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
            current: RwLock::new(None),
            defaults,
            schema: crate::schema::schema_for::<C>(),
        }
    }

    /// Parses and installs a configuration; on error the previous one stays.
    pub(crate) fn apply(&self, values: &JsonObject) -> Result<(), String> {
        if let Some(parser) = &self.parser {
            let parsed = parser(values)?;
            *self.current.write() = Some(parsed);
        }
        Ok(())
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
