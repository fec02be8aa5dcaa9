//! A plugin that uses host capabilities: `send.text` to a stream and its key-value store.

use maitool_sdk::JsonObject;
use maitool_sdk::prelude::*;

/// Arguments of `remember`.
#[derive(Deserialize, JsonSchema)]
#[serde(crate = "maitool_sdk::serde")]
#[schemars(crate = "maitool_sdk::schemars")]
struct RememberArgs {
    /// Note key.
    key: String,
    /// Note text.
    text: String,
}

/// Arguments of `recall`.
#[derive(Deserialize, JsonSchema)]
#[serde(crate = "maitool_sdk::serde")]
#[schemars(crate = "maitool_sdk::schemars")]
struct RecallArgs {
    /// Note key.
    key: String,
}

/// Arguments of `announce`.
#[derive(Deserialize, JsonSchema)]
#[serde(crate = "maitool_sdk::serde")]
#[schemars(crate = "maitool_sdk::schemars")]
struct AnnounceArgs {
    /// Text to send to the current stream.
    text: String,
}

fn args(pairs: &[(&str, Value)]) -> JsonObject {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect()
}

use maitool_sdk::Value;

fn main() {
    let notes = Plugin::new("examples.notes", "1.0.0")
        .name("Notes")
        .description("Keeps notes in the host's key-value store and announces them to the chat.")
        .capability("kv.*")
        .capability("send.text")
        .tool(
            Tool::new(
                "remember",
                "Store a note under a key.",
                |a: RememberArgs, ctx: ToolContext| async move {
                    ctx.host()
                        .call(
                            "kv.set",
                            args(&[("key", json!(a.key)), ("value", json!(a.text))]),
                        )
                        .await
                        .map_err(|e| ToolError::new(e.to_string()))?;
                    Ok(ToolOutput::text(format!("remembered {}", a.key)))
                },
            )
            .core_tool(),
        )
        .tool(
            Tool::new(
                "recall",
                "Read the note stored under a key.",
                |a: RecallArgs, ctx: ToolContext| async move {
                    let value = ctx
                        .host()
                        .call("kv.get", args(&[("key", json!(a.key))]))
                        .await
                        .map_err(|e| ToolError::new(e.to_string()))?;
                    match value {
                        Value::String(text) => Ok(ToolOutput::text(text)),
                        Value::Null => Err(ToolError::new(format!("no note named {}", a.key))),
                        other => Ok(ToolOutput::structured(other)),
                    }
                },
            )
            .core_tool(),
        )
        .tool(
            Tool::new(
                "announce",
                "Send a message to the current chat stream.",
                |a: AnnounceArgs, ctx: ToolContext| async move {
                    if ctx.stream_id().is_empty() {
                        return Err(ToolError::new(
                            "no stream to announce to: the call has no stream_id",
                        ));
                    }
                    let sent = ctx
                        .send_text(&a.text)
                        .await
                        .map_err(|e| ToolError::new(e.to_string()))?;
                    Ok(
                        ToolOutput::text(format!("announced to {}", ctx.stream_id()))
                            .with_structured(sent),
                    )
                },
            )
            .core_tool(),
        );
    maitool_sdk::run([notes]);
}
