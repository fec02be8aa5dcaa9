//! A plugin that answers chat messages rather than model calls: commands run when a message
//! matches their pattern, event handlers see every message (`maitool message`).
//!
//! - `roll` (`/roll 2d6`, alias `/r`): rolls dice, says the result in the chat and stops the
//!   message there (`intercept`);
//! - `remember` (`/remember TEXT`): keeps a note per stream in the kv store, answers, and lets
//!   the message go on to the `on_message` handlers;
//! - `spam_filter` (`on_message_pre_process`, weight 100, waited for): stops messages that
//!   contain one of the configured banned words, before any command sees them;
//! - `redact` (`on_message_pre_process`, weight 10, waited for): replaces what follows
//!   `password:` with `[redacted]`, so the stored message never holds it;
//! - `count` (`on_message`, not waited for): counts the messages of each stream;
//! - `relay`, a tool, and `inbox`, a receiving message gateway: what a bridge to a chat
//!   platform does with what it receives there, hand it to the host
//!   (`host.route_message`); here a tool call stands for the platform, to try the path.
//!
//! Configuration: `banned = ["..."]` (default `["buy now"]`).

use maitool_sdk::InboundMessage;
use maitool_sdk::prelude::*;

/// The plugin's configuration.
#[maitool_sdk::config]
#[serde(default)]
struct ChatConfig {
    /// Words that get a message dropped.
    banned: Vec<String>,
}

impl Default for ChatConfig {
    fn default() -> Self {
        ChatConfig {
            banned: vec!["buy now".to_owned()],
        }
    }
}

impl PluginConfig for ChatConfig {}

/// Rolls `dice` dice of `faces` faces, from a seed.
fn roll(dice: u32, faces: u32, seed: u64) -> Vec<u32> {
    let mut state = seed | 1;
    (0..dice)
        .map(|_| {
            // xorshift: enough for dice, and no dependency.
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % u64::from(faces)) as u32 + 1
        })
        .collect()
}

fn roll_command() -> Command {
    Command::new(
        "roll",
        "Rolls dice: /roll NdM",
        |input: CommandInput| async move {
            let number = |name: &str, default: u32| {
                input
                    .group(name)
                    .and_then(|n| n.parse::<u32>().ok())
                    .unwrap_or(default)
            };
            let (dice, faces) = (number("dice", 1), number("faces", 6));
            if dice == 0 || dice > 20 || faces < 2 {
                return Ok(CommandOutput::failed(format!(
                    "cannot roll {dice}d{faces}: 1 to 20 dice of 2 faces or more"
                )));
            }
            let seed = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(7);
            let rolls = roll(dice, faces, seed);
            let total: u32 = rolls.iter().sum();
            let said = format!(
                "{} rolled {dice}d{faces}: {rolls:?} = {total}",
                input.user_id()
            );
            input.send().text(said.clone()).await?;
            Ok(CommandOutput::reply(said))
        },
    )
    .pattern(r"^/roll(?:\s+(?P<dice>\d+)d(?P<faces>\d+))?\s*$")
    .alias("/r")
    .intercept()
}

fn remember_command() -> Command {
    Command::new(
        "remember",
        "Keeps a note for this chat: /remember TEXT",
        |input: CommandInput| async move {
            let note = input.group("note").unwrap_or_default().trim().to_owned();
            let key = format!("notes:{}", input.stream_id());
            let mut notes: Vec<String> = input.kv().get(&key).await?.unwrap_or_default();
            notes.push(note.clone());
            input.kv().set(&key, &notes).await?;
            Ok(CommandOutput::reply(format!(
                "noted ({} so far): {note}",
                notes.len()
            )))
        },
    )
    .pattern(r"^/remember\s+(?P<note>.+)$")
}

fn spam_filter() -> EventHandler {
    EventHandler::new(
        "spam_filter",
        EventType::OnMessagePreProcess,
        |event: Event| async move {
            let banned = event
                .config::<ChatConfig>()
                .map(|config| config.banned.clone())
                .unwrap_or_default();
            let text = event.text().unwrap_or_default().to_lowercase();
            match banned
                .iter()
                .find(|word| text.contains(&word.to_lowercase()))
            {
                Some(word) => Ok(EventOutput::stop().with_custom_result(json!({ "banned": word }))),
                None => Ok(EventOutput::proceed()),
            }
        },
    )
    .description("Drops messages with a banned word")
    .weight(100)
    .intercept_message()
}

fn redact() -> EventHandler {
    EventHandler::new(
        "redact",
        EventType::OnMessagePreProcess,
        |event: Event| async move {
            let text = event.text().unwrap_or_default();
            match text.find("password:") {
                Some(at) => {
                    let kept = &text[..at + "password:".len()];
                    Ok(EventOutput::modified(
                        event.message_with_text(format!("{kept} [redacted]")),
                    ))
                }
                None => Ok(EventOutput::proceed()),
            }
        },
    )
    .description("Hides passwords before anything stores or reads them")
    .weight(10)
    .intercept_message()
}

fn count() -> EventHandler {
    EventHandler::new("count", EventType::OnMessage, |event: Event| async move {
        let key = format!("count:{}", event.stream_id());
        let seen: u64 = event.kv().get(&key).await?.unwrap_or(0);
        event.kv().set(&key, &(seen + 1)).await?;
        Ok(EventOutput::proceed())
    })
    .description("Counts each stream's messages")
}

/// Arguments of `relay`.
#[maitool_sdk::args]
struct RelayArgs {
    /// The sender's user id on the platform.
    user_id: String,
    /// What they said.
    text: String,
    /// The platform (default `bridge`).
    #[serde(default)]
    platform: Option<String>,
    /// The group, for a group chat.
    #[serde(default)]
    group: Option<String>,
}

fn relay() -> Tool {
    Tool::new(
        "relay",
        "Hand the host a chat message as if a user of a bridged platform sent it",
        |args: RelayArgs, ctx: ToolContext| async move {
            let platform = args.platform.unwrap_or_else(|| "bridge".to_owned());
            let mut message = InboundMessage::new(platform, args.user_id, args.text);
            if let Some(group) = args.group {
                message = message.group(group);
            }
            let routed = ctx.host().route_message("inbox", message).await?;
            let command = &routed.outcome["command"];
            let summary = if command.is_null() {
                "routed; no command ran".to_owned()
            } else {
                format!(
                    "routed; command {} answered {}",
                    command["full_name"].as_str().unwrap_or_default(),
                    command["reply"]
                )
            };
            Ok(ToolOutput::text(summary).with_structured(routed.outcome))
        },
    )
}

fn chat() -> Plugin {
    Plugin::new("examples.chat", "1.0.0")
        .name("Chat")
        .description("Commands and event handlers over chat messages.")
        .capability("send.text")
        .capability("kv.*")
        .config::<ChatConfig>()
        .command(roll_command())
        .command(remember_command())
        .event_handler(spam_filter())
        .event_handler(redact())
        .event_handler(count())
        .message_gateway("inbox")
        .tool(relay())
}

fn main() {
    maitool_sdk::run([chat()]);
}

#[cfg(test)]
mod tests;
