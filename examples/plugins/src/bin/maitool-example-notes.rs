//! A plugin that uses host capabilities: `send.text` to a stream and its key-value store;
//! and its private data directory, where `export_note` writes notes as text files.
//!
//! `visible_env` (deferred: models find it only by searching) lists the names of the environment variables plugin
//! code can see, so an operator can check that the runner's launch secrets are gone.

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

/// Arguments of `export_note`.
#[derive(Deserialize, JsonSchema)]
#[serde(crate = "maitool_sdk::serde")]
#[schemars(crate = "maitool_sdk::schemars")]
struct ExportArgs {
    /// File name without extension: letters, digits, `-` and `_`, at most 64.
    name: String,
    /// Note text.
    text: String,
}

/// Arguments of `visible_env`.
#[derive(Deserialize, JsonSchema)]
#[serde(crate = "maitool_sdk::serde")]
#[schemars(crate = "maitool_sdk::schemars")]
struct VisibleEnvArgs {
    /// Only names starting with this prefix.
    #[serde(default)]
    prefix: String,
}

/// Writes `<data_dir>/<name>.txt`. The name is checked so a model cannot pick a path outside
/// the plugin's directory.
fn export_note(ctx: &ToolContext, a: &ExportArgs) -> Result<ToolOutput, ToolError> {
    let dir = ctx.data_dir().ok_or_else(|| {
        ToolError::new("the host gave this plugin no data directory (is it in the configuration?)")
    })?;
    let valid = !a.name.is_empty()
        && a.name.len() <= 64
        && a.name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !valid {
        return Err(ToolError::new(format!(
            "invalid note name {:?}: use letters, digits, - and _ (at most 64)",
            a.name
        )));
    }
    let path = dir.join(format!("{}.txt", a.name));
    // A short note: writing it in place is cheaper than handing it to a blocking thread.
    std::fs::write(&path, &a.text)
        .map_err(|err| ToolError::new(format!("cannot write {}: {err}", path.display())))?;
    Ok(
        ToolOutput::text(format!("exported {} to {}", a.name, path.display()))
            .with_structured(json!({ "path": path.display().to_string() })),
    )
}

fn args(pairs: &[(&str, Value)]) -> JsonObject {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect()
}

use maitool_sdk::Value;

fn main() {
    maitool_sdk::run([notes()]);
}

/// The plugin, apart from `main` so that its tests (`../tests/notes.rs`) run it in-process.
fn notes() -> Plugin {
    Plugin::new("examples.notes", "1.0.0")
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
        )
        .tool(Tool::new(
            "export_note",
            "Write a note to a text file in the plugin's data directory.",
            |a: ExportArgs, ctx: ToolContext| async move { export_note(&ctx, &a) },
        ))
        .tool(Tool::new(
            "visible_env",
            "Names (never values) of the environment variables plugin code can see.",
            |a: VisibleEnvArgs, _ctx: ToolContext| async move {
                let mut names: Vec<String> = std::env::vars_os()
                    .filter_map(|(name, _)| name.into_string().ok())
                    .filter(|name| name.starts_with(&a.prefix))
                    .collect();
                names.sort();
                Ok(ToolOutput::structured(json!({ "names": names })))
            },
        ))
}

#[cfg(test)]
#[path = "../tests/notes.rs"]
mod tests;
