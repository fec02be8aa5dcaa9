//! Who may run a command declared `permission = "operator"`: MaiBot's rule, over the settings
//! MaiBot keeps for it, which maitool's operator writes under `[bot.extra.plugin]` (where
//! plugins read them too, through `config.get("plugin.permission")`):
//!
//! ```toml
//! [bot.extra.plugin]
//! permission = ["qq:12345"]                  # operators, platform:user_id
//! [bot.extra.plugin.command_permissions."author.plugin.command"]
//! allow_users = ["qq:678"]                   # besides the operators, for this command
//! allow_chats = ["qq-group-42"]              # every sender in these streams
//! ```

use serde_json::Value;

use crate::plugin::BotConfig;

/// Why the sender may not run the command, or `None` when they may.
pub(super) fn refusal(
    bot: &BotConfig,
    command: &str,
    platform: &str,
    user_id: &str,
    stream_id: &str,
) -> Option<String> {
    let sender = scoped(platform, user_id);
    let listed = |value: Option<Value>| -> Vec<String> {
        match value {
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(|item| item.as_str())
                .map(normalized)
                .collect(),
            _ => Vec::new(),
        }
    };
    let operators = listed(bot.lookup("plugin.permission"));
    if !sender.is_empty() && operators.contains(&sender) {
        return None;
    }
    let rule = bot
        .lookup("plugin.command_permissions")
        .and_then(|rules| rules.get(command).cloned());
    if let Some(rule) = rule {
        if !sender.is_empty() && listed(rule.get("allow_users").cloned()).contains(&sender) {
            return None;
        }
        let chats = listed(rule.get("allow_chats").cloned());
        if chats.iter().any(|chat| chat == stream_id) {
            return None;
        }
    }
    Some(format!(
        "command {command} is for operators (permission = \"operator\"), and {} is not one: \
         list operators as platform:user_id in [bot.extra.plugin] permission",
        if sender.is_empty() {
            "a sender without platform".to_owned()
        } else {
            sender
        }
    ))
}

/// `platform:user_id`, the platform in lower case; empty when either is.
fn scoped(platform: &str, user_id: &str) -> String {
    let (platform, user_id) = (platform.trim().to_lowercase(), user_id.trim());
    if platform.is_empty() || user_id.is_empty() {
        return String::new();
    }
    format!("{platform}:{user_id}")
}

/// An entry as MaiBot normalises it: the platform in lower case, the id as it is.
fn normalized(entry: &str) -> String {
    let entry = entry.trim();
    match entry.split_once(':') {
        Some((platform, user)) => format!("{}:{}", platform.trim().to_lowercase(), user.trim()),
        None => entry.to_owned(),
    }
}

#[cfg(test)]
mod tests;
