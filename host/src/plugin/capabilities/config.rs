//! `config.*`: the bot's configuration (`[bot]` in `maitool.toml`) and the calling plugin's
//! own configuration.
//!
//! MaiBot's `config.get` reads its global configuration by dotted path (`bot.nickname`,
//! `personality.personality`); here `bot.*` reads the `[bot]` section and any other path reads
//! `[bot.extra]`, where an operator puts whatever other global settings their plugins expect.
//! `config.get_plugin` and `config.get_all` return the calling plugin's configuration, as in
//! MaiBot; reading another plugin's configuration is refused (it may hold secrets).

use maitool_protocol::JsonObject;
use maitool_protocol::rpc::RpcError;
use maitool_protocol::wire::ErrorCode;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::CapabilityService;
use super::args::Args;
use maitool_protocol::capability::Capability;

/// `[bot]`: who the bot is, as MaiBot plugins read it through `config.get("bot.…")`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BotConfig {
    /// The bot's name (`bot.nickname`); MaiBot's default is 麦麦.
    pub nickname: String,
    /// Other names it answers to (`bot.alias_names`).
    pub alias_names: Vec<String>,
    /// The fallback primary platform (`bot.platform`).
    pub platform: String,
    /// The bot's QQ account (`bot.qq_account`).
    pub qq_account: String,
    /// Accounts on other platforms, as `platform:account` (`bot.platforms`).
    pub platforms: Vec<String>,
    /// Any other dotted paths plugins read (`[bot.extra.personality] personality = "…"`
    /// answers `config.get("personality.personality")`).
    pub extra: toml::Table,
}

impl Default for BotConfig {
    fn default() -> Self {
        Self {
            nickname: "麦麦".into(),
            alias_names: Vec::new(),
            platform: String::new(),
            qq_account: String::new(),
            platforms: Vec::new(),
            extra: toml::Table::new(),
        }
    }
}

impl BotConfig {
    /// The value at a dotted path, `None` when any part is missing.
    pub fn lookup(&self, key: &str) -> Option<Value> {
        let mut bot = serde_json::to_value(self).ok()?;
        let extra = match &mut bot {
            Value::Object(map) => map.remove("extra")?,
            _ => return None,
        };
        match key.split_once('.') {
            Some(("bot", rest)) => walk(bot, rest),
            None if key == "bot" => Some(bot),
            _ => walk(extra, key),
        }
    }
}

fn walk(mut value: Value, path: &str) -> Option<Value> {
    for part in path.split('.') {
        value = match value {
            Value::Object(mut map) => map.remove(part)?,
            _ => return None,
        };
    }
    Some(value)
}

impl CapabilityService {
    pub(super) fn config(&self, plugin_id: &str, args: Args<'_>) -> Result<Value, RpcError> {
        let default = args.value("default").cloned().unwrap_or(Value::Null);
        match args.capability {
            Capability::ConfigGet => {
                let key = args.required_str("key")?;
                let value = self.bot.read().lookup(&key).unwrap_or(default);
                Ok(json!({ "success": true, "value": value }))
            }
            Capability::ConfigGetPlugin | Capability::ConfigGetAll => {
                if let Some(name) = args.opt_str("plugin_name")?
                    && !name.is_empty()
                    && name != plugin_id
                {
                    return Err(RpcError::new(
                        ErrorCode::CapabilityDenied,
                        format!(
                            "{}: plugin {plugin_id} may read only its own configuration, not {name}'s",
                            args.capability
                        ),
                    ));
                }
                let config = Value::Object(self.plugin_config(plugin_id));
                let value = match args.opt_str("key")?.filter(|key| !key.is_empty()) {
                    Some(key) if args.capability == Capability::ConfigGetPlugin => {
                        walk(config, &key).unwrap_or(default)
                    }
                    _ => config,
                };
                Ok(json!({ "success": true, "value": value }))
            }
            _ => unreachable!("dispatch only routes config.* capabilities here"),
        }
    }

    fn plugin_config(&self, plugin_id: &str) -> JsonObject {
        self.configs
            .read()
            .get(plugin_id)
            .cloned()
            .unwrap_or_default()
    }
}
