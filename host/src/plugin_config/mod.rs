//! Plugins' configurations as an operator (the web console) or a privileged plugin
//! (`component.update_plugin_config`) changes them: checked against the plugin's schema,
//! written into `maitool.toml` with its comments and layout kept, and applied live through
//! [`Host::reload`] (which delivers it to the plugin's `on_config_update`). What the plugin
//! refuses is rolled back, file and all.

mod error;
pub mod schema;
mod toml_doc;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Weak};

use futures::future::BoxFuture;
use maitool_protocol::JsonObject;
use serde::Serialize;
use serde_json::Value;

pub use error::PluginConfigError;
pub use schema::{FieldError, is_secret_key};

use crate::app::{Host, ReloadReport};
use crate::config::HostConfig;
use crate::plugin::{ConfigEditor, RegisteredConfig};

/// What stands in for a secret's value wherever a configuration is shown; a value equal to it
/// in what comes back means "unchanged".
pub const REDACTED: &str = "********";

/// A plugin's configuration as the console shows it.
#[derive(Debug, Clone, Serialize)]
pub struct PluginConfigView {
    /// Plugin id.
    pub plugin_id: String,
    /// Its runner.
    pub runner: String,
    /// The schema and defaults the plugin registered, when it has registered.
    pub registered: Option<RegisteredConfig>,
    /// The schema as JSON Schema; `None` when the plugin reported none.
    pub json_schema: Option<Value>,
    /// The configuration in force: the plugin's defaults under what `maitool.toml` sets.
    pub current: JsonObject,
}

/// What an applied configuration did.
#[derive(Debug, Clone, Serialize)]
pub struct Applied {
    /// The reload that delivered it.
    pub report: ReloadReport,
}

/// Reads, checks, saves and applies plugin configurations of one host.
#[derive(Debug)]
pub struct PluginConfigs {
    host: Weak<Host>,
    /// One edit of the file at a time.
    writing: tokio::sync::Mutex<()>,
}

impl PluginConfigs {
    /// The configurations of `host`; also serves `component.update_plugin_config` from now on.
    pub fn attach(host: &Arc<Host>) -> Arc<PluginConfigs> {
        let configs = Arc::new(PluginConfigs {
            host: Arc::downgrade(host),
            writing: tokio::sync::Mutex::new(()),
        });
        host.plugins
            .capabilities()
            .attach_config_editor(&(configs.clone() as Arc<dyn ConfigEditor>));
        configs
    }

    fn host(&self) -> Result<Arc<Host>, PluginConfigError> {
        self.host.upgrade().ok_or(PluginConfigError::HostGone)
    }

    /// The runner that hosts `plugin_id`.
    fn runner_of(host: &Host, plugin_id: &str) -> Result<String, PluginConfigError> {
        host.plugins
            .status()
            .into_iter()
            .find(|runner| runner.plugins.iter().any(|plugin| plugin.id == plugin_id))
            .map(|runner| runner.name)
            .ok_or_else(|| PluginConfigError::NoPlugin(plugin_id.to_owned()))
    }

    /// What the configuration file sets for `plugin_id` (its `config_file` merged in).
    fn configured(&self, plugin_id: &str) -> Result<JsonObject, PluginConfigError> {
        Ok(self
            .host()?
            .config()
            .runners
            .iter()
            .find_map(|r| r.plugins.get(plugin_id).map(|s| s.config.clone()))
            .unwrap_or_default())
    }

    /// `plugin_id`'s schema, defaults and configuration in force.
    pub fn view(&self, plugin_id: &str) -> Result<PluginConfigView, PluginConfigError> {
        let host = self.host()?;
        let runner = Self::runner_of(&host, plugin_id)?;
        let registered = host.plugins.registered_config(plugin_id);
        let configured = self.configured(plugin_id)?;
        let mut current = registered
            .as_ref()
            .map(|r| r.default_config.clone())
            .unwrap_or_default();
        merge(&mut current, &configured);
        Ok(PluginConfigView {
            plugin_id: plugin_id.to_owned(),
            runner,
            json_schema: registered
                .as_ref()
                .and_then(|r| schema::json_schema(&r.schema)),
            registered,
            current,
        })
    }

    /// Checks `config` against `plugin_id`'s schema, saves it into the configuration file and
    /// applies it live. Invalid against the schema: nothing is saved
    /// ([`PluginConfigError::Invalid`]). Refused by the plugin: the file and the plugin are put
    /// back as they were ([`PluginConfigError::Refused`]).
    pub async fn apply(
        &self,
        plugin_id: &str,
        mut config: JsonObject,
    ) -> Result<Applied, PluginConfigError> {
        let view = self.view(plugin_id)?;
        restore_secrets(&mut config, &view.current);
        if let Some(schema) = &view.json_schema {
            let errors = schema::validate(schema, &config);
            if !errors.is_empty() {
                return Err(PluginConfigError::Invalid(errors));
            }
        }
        let runner = view.runner.clone();
        let defaults = view
            .registered
            .map(|r| r.default_config)
            .unwrap_or_default();
        let configured = self.configured(plugin_id)?;
        let config = without_defaults(config, &defaults, &configured);
        self.edit_and_reload(plugin_id, |text| {
            toml_doc::set_plugin_config(text, &runner, plugin_id, &config)
        })
        .await
    }

    /// [`apply`](Self::apply) of a TOML table's text (the console's raw mode): what does not
    /// parse is refused before anything else.
    pub async fn apply_raw(
        &self,
        plugin_id: &str,
        text: &str,
    ) -> Result<Applied, PluginConfigError> {
        let config = toml_doc::parse_table(text)?;
        self.apply(plugin_id, config).await
    }

    /// Sets one key of `plugin_id`'s configuration (a dotted path into nested tables) and
    /// applies the result as [`apply`](Self::apply) does.
    pub async fn update_key(
        &self,
        plugin_id: &str,
        key: &str,
        value: Value,
    ) -> Result<Applied, PluginConfigError> {
        let mut config = self.view(plugin_id)?.current;
        let mut parts = key.split('.').peekable();
        let mut table = &mut config;
        while let Some(part) = parts.next() {
            if part.is_empty() {
                return Err(PluginConfigError::BadKey(key.to_owned()));
            }
            if parts.peek().is_none() {
                table.insert(part.to_owned(), value);
                break;
            }
            let entry = table
                .entry(part.to_owned())
                .or_insert_with(|| Value::Object(JsonObject::new()));
            table = entry
                .as_object_mut()
                .ok_or_else(|| PluginConfigError::BadKey(key.to_owned()))?;
        }
        self.apply(plugin_id, config).await
    }

    /// Sets `enabled` of `plugin_id` in the configuration file and applies it: a disabled
    /// plugin is inactive and its tools are gone, across restarts too.
    pub async fn set_enabled(
        &self,
        plugin_id: &str,
        enabled: bool,
    ) -> Result<Applied, PluginConfigError> {
        let host = self.host()?;
        let runner = Self::runner_of(&host, plugin_id)?;
        self.edit_and_reload(plugin_id, |text| {
            toml_doc::set_plugin_enabled(text, &runner, plugin_id, enabled)
        })
        .await
    }

    /// The plugin's configuration as a TOML table's text, secrets redacted (the raw mode).
    pub fn raw_text(&self, plugin_id: &str) -> Result<String, PluginConfigError> {
        Ok(toml_doc::table_text(&redacted(
            &self.view(plugin_id)?.current,
        )))
    }

    /// Edits the configuration file with `edit`, checks the result loads, saves it and
    /// reloads; puts the old file back when the reload refuses `plugin_id`'s part.
    async fn edit_and_reload(
        &self,
        plugin_id: &str,
        edit: impl FnOnce(&str) -> Result<String, PluginConfigError>,
    ) -> Result<Applied, PluginConfigError> {
        let host = self.host()?;
        let _writing = self.writing.lock().await;
        let path = host.config().path.ok_or(PluginConfigError::NoFile)?;
        let before = std::fs::read_to_string(&path).map_err(|source| PluginConfigError::Io {
            path: path.clone(),
            source,
        })?;
        let after = edit(&before)?;
        write_checked(&path, &after)?;
        let report = match host.reload().await {
            Ok(report) => report,
            Err(err) => {
                write_file(&path, &before)?;
                return Err(PluginConfigError::Reload(err));
            }
        };
        let refused = refusal(&report, plugin_id);
        if let Some(reason) = refused {
            write_file(&path, &before)?;
            if let Err(err) = host.reload().await {
                tracing::error!(
                    "putting back the configuration of {plugin_id}: {}",
                    crate::error_text::chain(&err)
                );
            }
            return Err(PluginConfigError::Refused(reason));
        }
        tracing::info!(plugin = plugin_id, "plugin configuration saved and applied");
        Ok(Applied { report })
    }
}

impl ConfigEditor for PluginConfigs {
    fn update_key<'a>(
        &'a self,
        plugin_id: &'a str,
        key: &'a str,
        value: Value,
    ) -> BoxFuture<'a, Result<(), Box<dyn std::error::Error + Send + Sync>>> {
        Box::pin(async move {
            self.update_key(plugin_id, key, value)
                .await
                .map(|_| ())
                .map_err(|err| Box::new(err) as Box<dyn std::error::Error + Send + Sync>)
        })
    }
}

/// Why the reload did not apply `plugin_id`'s new configuration, if it did not.
fn refusal(report: &ReloadReport, plugin_id: &str) -> Option<String> {
    report
        .plugins
        .rejected
        .iter()
        .chain(&report.plugins.paused)
        .find(|line| {
            line.split_once('/').is_some_and(|(_, rest)| {
                rest.strip_prefix(plugin_id)
                    .is_some_and(|tail| tail.is_empty() || tail.starts_with(':'))
            })
        })
        .map(|line| {
            line.split_once(": ")
                .map_or(line.as_str(), |(_, r)| r)
                .to_owned()
        })
}

/// Writes `text` beside `path`, checks it loads as a whole configuration, then moves it over
/// `path`: a file that would not load is never saved.
fn write_checked(path: &Path, text: &str) -> Result<(), PluginConfigError> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let io = |source| PluginConfigError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut staged = tempfile::Builder::new()
        .prefix(".maitool-edit-")
        .suffix(".toml")
        .tempfile_in(dir)
        .map_err(io)?;
    std::io::Write::write_all(&mut staged, text.as_bytes()).map_err(io)?;
    HostConfig::load(staged.path()).map_err(PluginConfigError::WouldNotLoad)?;
    if let Ok(meta) = std::fs::metadata(path) {
        let _ = std::fs::set_permissions(staged.path(), meta.permissions());
    }
    staged.persist(path).map_err(|err| io(err.error))?;
    Ok(())
}

/// Puts `text` back at `path` (a rollback: it loaded before).
fn write_file(path: &Path, text: &str) -> Result<(), PluginConfigError> {
    let path: PathBuf = path.to_path_buf();
    std::fs::write(&path, text).map_err(|source| PluginConfigError::Io { path, source })
}

/// `over` merged into `base`, tables key by key.
fn merge(base: &mut JsonObject, over: &JsonObject) {
    for (key, value) in over {
        match (base.get_mut(key), value) {
            (Some(Value::Object(inner)), Value::Object(update)) => merge(inner, update),
            _ => {
                base.insert(key.clone(), value.clone());
            }
        }
    }
}

/// `config` without the top-level keys that equal the plugin's default and that the file
/// does not set already: saving a form does not write out every default.
fn without_defaults(
    mut config: JsonObject,
    defaults: &JsonObject,
    configured: &JsonObject,
) -> JsonObject {
    config.retain(|key, value| configured.contains_key(key) || defaults.get(key) != Some(value));
    config
}

/// `config` with every secret's value replaced by [`REDACTED`].
pub fn redacted(config: &JsonObject) -> JsonObject {
    config
        .iter()
        .map(|(key, value)| {
            let shown = match value {
                Value::Object(inner) => Value::Object(redacted(inner)),
                _ if is_secret_key(key) && !value.is_null() => Value::String(REDACTED.into()),
                _ => value.clone(),
            };
            (key.clone(), shown)
        })
        .collect()
}

/// Puts the current value back for each secret that came back as [`REDACTED`] or empty.
fn restore_secrets(config: &mut JsonObject, current: &JsonObject) {
    for (key, value) in config.iter_mut() {
        match (value, current.get(key)) {
            (Value::Object(inner), Some(Value::Object(was))) => restore_secrets(inner, was),
            (value, Some(was))
                if is_secret_key(key)
                    && value
                        .as_str()
                        .is_some_and(|s| s == REDACTED || s.is_empty()) =>
            {
                *value = was.clone();
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests;
