//! A plugin that uses host capabilities through the SDK's typed helpers: its key-value store
//! (`ctx.kv()`: `remember`, `recall`, `forget`, `list_notes`) and `send.text` to the call's
//! stream (`ctx.send()`: `announce`); and its private data directory, where `export_note`
//! writes notes as text files.
//!
//! `remember`, `recall` and `announce` are core tools, visible to the model on every turn.
//! The others are deferred (the default): the model finds them with `tool_search`. One of
//! them, `visible_env`, lists the names of the environment variables plugin code can see,
//! so an operator can check that the runner's launch secrets are gone.
//!
//! Every note is stored as a [`Note`] under `note:<key>`.

use maitool_sdk::prelude::*;

/// What the store keeps per note.
#[derive(Serialize, Deserialize)]
#[serde(crate = "maitool_sdk::serde")]
struct Note {
    text: String,
}

fn note_key(key: &str) -> String {
    format!("note:{key}")
}

/// Arguments of `remember`.
#[maitool_sdk::args]
struct RememberArgs {
    /// Note key.
    key: String,
    /// Note text.
    text: String,
}

/// Arguments of `recall`.
#[maitool_sdk::args]
struct RecallArgs {
    /// Note key.
    key: String,
}

/// Arguments of `announce`.
#[maitool_sdk::args]
struct AnnounceArgs {
    /// Text to send to the current stream.
    text: String,
}

/// Arguments of `list_notes`.
#[maitool_sdk::args]
struct ListArgs {
    /// Only keys starting with this prefix.
    #[serde(default)]
    prefix: String,
}

/// Arguments of `export_note`.
#[maitool_sdk::args]
struct ExportArgs {
    /// File name without extension: letters, digits, `-` and `_`, at most 64.
    name: String,
    /// Note text.
    text: String,
}

/// Arguments of `visible_env`.
#[maitool_sdk::args]
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
                    let note = Note { text: a.text };
                    ctx.kv().set(&note_key(&a.key), &note).await?;
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
                    match ctx.kv().get::<Note>(&note_key(&a.key)).await? {
                        Some(note) => Ok(ToolOutput::text(note.text)),
                        None => Err(ToolError::new(format!("no note named {}", a.key))),
                    }
                },
            )
            .core_tool(),
        )
        .tool(Tool::new(
            "forget",
            "Delete the note stored under a key.",
            |a: RecallArgs, ctx: ToolContext| async move {
                let existed = ctx.kv().delete(&note_key(&a.key)).await?;
                Ok(ToolOutput::text(if existed {
                    format!("forgot {}", a.key)
                } else {
                    format!("there was no note named {}", a.key)
                }))
            },
        ))
        .tool(Tool::new(
            "list_notes",
            "List the keys of the stored notes.",
            |a: ListArgs, ctx: ToolContext| async move {
                let keys: Vec<String> = ctx
                    .kv()
                    .list(&note_key(&a.prefix))
                    .await?
                    .into_iter()
                    .filter_map(|key| key.strip_prefix("note:").map(str::to_owned))
                    .collect();
                Ok(ToolOutput::text(keys.join(", ")).with_structured(json!({ "keys": keys })))
            },
        ))
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
                    let sent = ctx.send().text(&a.text).await?;
                    Ok(
                        ToolOutput::text(format!("announced to {}", ctx.stream_id()))
                            .with_structured(json!({ "message_id": sent.message_id })),
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
mod tests;
