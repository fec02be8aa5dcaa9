//! One plugin API, read from its declaration (static `@API` components and the dynamic APIs
//! of `api.replace_dynamic` alike).

use maitool_protocol::JsonObject;
use maitool_protocol::api::{self, DEFAULT_VERSION};
use maitool_protocol::wire::methods::ComponentDeclaration;
use serde::Serialize;
use serde_json::Value;

/// An API a plugin offers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ApiEntry {
    /// Its name within the plugin (it may contain dots).
    pub name: String,
    /// The owning plugin.
    pub plugin_id: String,
    /// What it does.
    pub description: String,
    /// Its version (`1` unless declared).
    pub version: String,
    /// Whether other plugins may call it.
    pub public: bool,
    /// Its declared metadata, as MaiBot's `api.get` returns it.
    pub metadata: JsonObject,
    /// Whether it can be called now.
    pub enabled: bool,
    /// The name `plugin.invoke_api` runs it by.
    pub handler_name: String,
    /// Registered at run time through `api.replace_dynamic`.
    pub dynamic: bool,
    /// Why a dynamic API went offline.
    pub offline_reason: String,
    /// Its call timeout; 0: the runtime's default.
    pub timeout_ms: u64,
    /// `plugin_id.name`.
    pub full_name: String,
    /// `plugin_id.name@version`.
    pub registry_key: String,
}

impl ApiEntry {
    /// True for an `API` declaration.
    pub fn is_api(component_type: &str) -> bool {
        component_type.trim().eq_ignore_ascii_case(api::API_TYPE)
    }

    /// The entry of one declaration, or why it cannot be registered.
    pub fn from_declaration(plugin_id: &str, decl: &ComponentDeclaration) -> Result<Self, String> {
        Self::from_parts(plugin_id, &decl.name, decl.metadata.clone())
    }

    /// The entry of an API called `name` with `metadata`.
    pub fn from_parts(plugin_id: &str, name: &str, metadata: JsonObject) -> Result<Self, String> {
        let name = name.trim();
        if name.is_empty() {
            return Err("an API has an empty name".to_owned());
        }
        let text = |key: &str| match metadata.get(key) {
            Some(Value::String(text)) => text.trim().to_owned(),
            Some(Value::Number(number)) => number.to_string(),
            _ => String::new(),
        };
        let flag = |key: &str, default: bool| {
            metadata
                .get(key)
                .and_then(Value::as_bool)
                .unwrap_or(default)
        };
        let version = match text("version") {
            version if version.is_empty() => DEFAULT_VERSION.to_owned(),
            version => version,
        };
        let timeout_ms = match metadata.get("timeout_ms") {
            None | Some(Value::Null) => 0,
            Some(value) => value.as_u64().ok_or_else(|| {
                format!("API {name}: timeout_ms must be a non-negative integer, got {value}")
            })?,
        };
        let handler_name = match text("handler_name") {
            handler if handler.is_empty() => name.to_owned(),
            handler => handler,
        };
        Ok(ApiEntry {
            full_name: format!("{plugin_id}.{name}"),
            registry_key: api::registry_key(plugin_id, name, &version),
            name: name.to_owned(),
            plugin_id: plugin_id.to_owned(),
            description: text("description"),
            public: flag("public", false),
            enabled: flag("enabled", true),
            dynamic: flag("dynamic", false),
            offline_reason: text("offline_reason"),
            handler_name,
            version,
            timeout_ms,
            metadata,
        })
    }

    /// Whether `caller` may see and call it: its own plugin, or anyone when public.
    pub fn visible_to(&self, caller: &str) -> bool {
        self.public || self.plugin_id == caller
    }

    /// The API as `api.get` and `api.list` answer it (MaiBot's fields).
    pub fn to_json(&self) -> Value {
        serde_json::json!({
            "name": self.name,
            "full_name": self.full_name,
            "plugin_id": self.plugin_id,
            "description": self.description,
            "version": self.version,
            "public": self.public,
            "enabled": self.enabled,
            "dynamic": self.dynamic,
            "offline_reason": self.offline_reason,
            "metadata": self.metadata,
        })
    }

    /// Who may call it, in a line for `maitool plugins`.
    pub fn describe(&self) -> String {
        let who = if self.public {
            "public API: any plugin granted api.call may call it"
        } else {
            "private API: only its own plugin may call it"
        };
        let mut line = if self.dynamic {
            format!("dynamic {who}")
        } else {
            who.to_owned()
        };
        if !self.enabled {
            line.push_str(&format!("; offline: {}", self.unavailable()));
        }
        line
    }

    /// Why it cannot be called now.
    pub fn unavailable(&self) -> String {
        if self.offline_reason.is_empty() {
            format!("API {} is not available now", self.registry_key)
        } else {
            self.offline_reason.clone()
        }
    }
}
