//! Tools declared with the SDK's macros instead of the builder: `#[tools]` on an impl block
//! whose methods share the plugin's state through `&self`, and `#[tool]` on a free function.
//! Votes are counted per chat in memory and mirrored into the host's key-value store.

use std::collections::BTreeMap;
use std::sync::Mutex;

use maitool_sdk::prelude::*;
use maitool_sdk::{JsonObject, Value};

/// One poll per chat: chat id, then option, then votes.
#[derive(Default)]
struct Tally {
    polls: Mutex<BTreeMap<String, BTreeMap<String, u64>>>,
}

#[maitool_sdk::tools]
impl Tally {
    /// Vote for an option in this chat's poll; answers the option's new count.
    #[tool(core)]
    async fn vote(
        &self,
        /// The option voted for (case does not matter).
        option: String,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let option = option.trim().to_lowercase();
        if option.is_empty() {
            return Err(ToolError::new("the option is empty"));
        }
        let count = self.count(ctx.chat_id(), &option) + 1;
        // Stored first: a vote the host could not keep is not counted.
        let args = JsonObject::from_iter([
            (
                "key".to_owned(),
                Value::from(format!("tally:{}:{option}", ctx.chat_id())),
            ),
            ("value".to_owned(), Value::from(count)),
        ]);
        ctx.host().call("kv.set", args).await?;
        let mut polls = self.polls.lock().unwrap_or_else(|e| e.into_inner());
        polls
            .entry(ctx.chat_id().to_owned())
            .or_default()
            .insert(option.clone(), count);
        Ok(ToolOutput::text(format!("{option}: {count}"))
            .with_structured(json!({ "option": option, "count": count })))
    }

    /// The votes of this chat's poll, most first.
    #[tool(core, name = "tally_results")]
    async fn results(&self, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let polls = self.polls.lock().unwrap_or_else(|e| e.into_inner());
        let mut votes: Vec<(String, u64)> = polls
            .get(ctx.chat_id())
            .map(|poll| poll.iter().map(|(o, c)| (o.clone(), *c)).collect())
            .unwrap_or_default();
        votes.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let text = votes
            .iter()
            .map(|(option, count)| format!("{option}: {count}"))
            .collect::<Vec<_>>()
            .join(", ");
        Ok(ToolOutput::text(if text.is_empty() {
            "no votes yet".to_owned()
        } else {
            text
        }))
    }
}

impl Tally {
    /// Not a tool (no `#[tool]`): the votes an option has in a chat.
    fn count(&self, chat: &str, option: &str) -> u64 {
        let polls = self.polls.lock().unwrap_or_else(|e| e.into_inner());
        polls
            .get(chat)
            .and_then(|poll| poll.get(option))
            .copied()
            .unwrap_or(0)
    }
}

/// Count the words of a text.
#[maitool_sdk::tool(timeout_ms = 2000)]
async fn word_count(
    /// The text to count.
    text: String,
) -> Result<String, ToolError> {
    Ok(text.split_whitespace().count().to_string())
}

fn main() {
    maitool_sdk::run([tally()]);
}

/// The plugin, apart from `main` so that its tests (`../tests/tally.rs`) run it in-process.
fn tally() -> Plugin {
    Plugin::new("examples.tally", "1.0.0")
        .name("Tally")
        .description("Counts votes per chat; shows the #[tool] and #[tools] macros.")
        .capability("kv.set")
        .tools(Tally::default().into_tools())
        .tool(word_count_tool())
}

#[cfg(test)]
mod tests;
