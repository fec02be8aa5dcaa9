//! Edits of `maitool.toml` that keep everything else of the file as the operator wrote it:
//! comments, blank lines, key order, and the `${VAR:-default}` references, which are not TOML
//! and so are swapped for placeholders while toml_edit holds the document.

use maitool_protocol::JsonObject;
use serde_json::Value;
use toml_edit::{DocumentMut, Item, Table, TableLike};

use super::PluginConfigError;

/// A configuration file's text with its `${...}` references swapped for placeholders.
struct Masked {
    text: String,
    /// `(placeholder as written, original reference)`.
    references: Vec<(String, String)>,
}

/// Where the scanner is in the TOML text.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scan {
    Code,
    Comment,
    Basic,
    Literal,
    MultiBasic,
    MultiLiteral,
}

/// Swaps each `${...}` for a placeholder: a quoted string where the reference stands for a
/// whole value (`listing_wait_ms = ${X:-5000}`), bare text inside a string. Comments are left
/// alone (toml_edit keeps them verbatim).
fn mask(text: &str) -> Masked {
    let nonce = {
        let mut bytes = [0u8; 4];
        // A fixed nonce would only matter for a file that already contains the placeholder.
        let _ = getrandom::fill(&mut bytes);
        u32::from_le_bytes(bytes)
    };
    let mut out = String::with_capacity(text.len());
    let mut references = Vec::new();
    let mut state = Scan::Code;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let starts = |prefix: &str| rest.starts_with(prefix);
        if state != Scan::Comment && starts("$$") {
            out.push_str("$$");
            rest = &rest[2..];
            continue;
        }
        if state != Scan::Comment
            && starts("${")
            && let Some(end) = rest.find('}')
        {
            let original = &rest[..=end];
            let bare = format!("__maitool_env_{nonce:08x}_{}__", references.len());
            let placeholder = if state == Scan::Code {
                format!("\"{bare}\"")
            } else {
                bare
            };
            out.push_str(&placeholder);
            references.push((placeholder, original.to_owned()));
            rest = &rest[end + 1..];
            continue;
        }
        let (next, taken) = match state {
            Scan::Code if c == '#' => (Scan::Comment, 1),
            Scan::Code if starts("\"\"\"") => (Scan::MultiBasic, 3),
            Scan::Code if starts("'''") => (Scan::MultiLiteral, 3),
            Scan::Code if c == '"' => (Scan::Basic, 1),
            Scan::Code if c == '\'' => (Scan::Literal, 1),
            Scan::Comment if c == '\n' => (Scan::Code, 1),
            Scan::Basic | Scan::MultiBasic if c == '\\' => (
                state,
                1 + rest[1..].chars().next().map_or(0, char::len_utf8),
            ),
            Scan::Basic if c == '"' => (Scan::Code, 1),
            Scan::Literal if c == '\'' => (Scan::Code, 1),
            Scan::MultiBasic if starts("\"\"\"") => (Scan::Code, 3),
            Scan::MultiLiteral if starts("'''") => (Scan::Code, 3),
            _ => (state, c.len_utf8()),
        };
        out.push_str(&rest[..taken]);
        rest = &rest[taken..];
        state = next;
    }
    Masked {
        text: out,
        references,
    }
}

/// The file's text with its references back in place of the placeholders.
fn unmask(mut text: String, references: &[(String, String)]) -> String {
    for (placeholder, original) in references {
        text = text.replace(placeholder, original);
    }
    text
}

/// Parses `text` (a configuration file, references and all) for editing, applies `edit`, and
/// returns the new text.
fn edit_file(
    text: &str,
    edit: impl FnOnce(&mut DocumentMut) -> Result<(), PluginConfigError>,
) -> Result<String, PluginConfigError> {
    let masked = mask(text);
    let mut document: DocumentMut =
        masked
            .text
            .parse()
            .map_err(|err: toml_edit::TomlError| PluginConfigError::FileSyntax {
                message: err.to_string().trim().to_owned(),
            })?;
    edit(&mut document)?;
    Ok(unmask(document.to_string(), &masked.references))
}

/// The `[runners.plugins."plugin_id"]` table of runner `runner`, made (as dotted headers of
/// the runner's entry) when missing.
fn plugin_table<'d>(
    document: &'d mut DocumentMut,
    runner: &str,
    plugin_id: &str,
) -> Result<&'d mut dyn TableLike, PluginConfigError> {
    let no_runner = || PluginConfigError::NoRunnerEntry {
        runner: runner.to_owned(),
    };
    let runners = document
        .get_mut("runners")
        .and_then(Item::as_array_of_tables_mut)
        .ok_or_else(no_runner)?;
    let entry = runners
        .iter_mut()
        .find(|entry| entry.get("name").and_then(Item::as_str) == Some(runner))
        .ok_or_else(no_runner)?;
    let position = entry.position();
    let plugins = entry.entry("plugins").or_insert_with(|| {
        let mut table = Table::new();
        table.set_implicit(true);
        Item::Table(table)
    });
    let plugins = plugins
        .as_table_like_mut()
        .ok_or_else(|| PluginConfigError::NotATable {
            key: format!("runners.{runner}.plugins"),
        })?;
    let plugin = plugins.entry(plugin_id).or_insert_with(|| {
        let mut table = Table::new();
        // New headers go right after the runner's entry, not at the end of the file.
        table.set_position(position);
        Item::Table(table)
    });
    plugin
        .as_table_like_mut()
        .ok_or_else(|| PluginConfigError::NotATable {
            key: format!("runners.plugins.\"{plugin_id}\""),
        })
}

/// `text` with `[runners.plugins."plugin_id"].config` of runner `runner` replaced by
/// `config`: keys whose value did not change keep their formatting and comments, keys no
/// longer present are removed, new ones are added at the table's end.
pub(crate) fn set_plugin_config(
    text: &str,
    runner: &str,
    plugin_id: &str,
    config: &JsonObject,
) -> Result<String, PluginConfigError> {
    edit_file(text, |document| {
        let plugin = plugin_table(document, runner, plugin_id)?;
        let config_item = plugin.entry("config").or_insert_with(|| {
            let mut table = Table::new();
            table.set_implicit(false);
            Item::Table(table)
        });
        let table =
            config_item
                .as_table_like_mut()
                .ok_or_else(|| PluginConfigError::NotATable {
                    key: format!("runners.plugins.\"{plugin_id}\".config"),
                })?;
        replace_entries(table, config);
        Ok(())
    })
}

/// `text` with `enabled` of `[runners.plugins."plugin_id"]` set.
pub(crate) fn set_plugin_enabled(
    text: &str,
    runner: &str,
    plugin_id: &str,
    enabled: bool,
) -> Result<String, PluginConfigError> {
    edit_file(text, |document| {
        let plugin = plugin_table(document, runner, plugin_id)?;
        match plugin.get_mut("enabled") {
            Some(item) if item.as_bool().is_some() => {
                let decor = item.as_value().map(|value| value.decor().clone());
                let mut value = toml_edit::Value::from(enabled);
                if let Some(decor) = decor {
                    *value.decor_mut() = decor;
                }
                *item = Item::Value(value);
            }
            _ => {
                plugin.insert("enabled", toml_edit::value(enabled));
            }
        }
        Ok(())
    })
}

/// Makes `table` hold exactly `config`, keeping unchanged entries as they were written.
fn replace_entries(table: &mut dyn TableLike, config: &JsonObject) {
    let stale: Vec<String> = table
        .iter()
        .map(|(key, _)| key.to_owned())
        .filter(|key| !config.contains_key(key))
        .collect();
    for key in stale {
        table.remove(&key);
    }
    for (key, wanted) in config {
        let Some(new_value) = toml_value(wanted) else {
            // TOML has no null: a null value is an absent key.
            table.remove(key);
            continue;
        };
        match table.get_mut(key) {
            Some(existing) if same_value(existing, wanted) => {}
            Some(existing) if existing.is_table_like() && wanted.is_object() => {
                if let (Some(inner), Value::Object(object)) = (existing.as_table_like_mut(), wanted)
                {
                    replace_entries(inner, object);
                }
            }
            Some(existing) => {
                let mut new_value = new_value;
                if let Some(decor) = existing.as_value().map(|value| value.decor().clone()) {
                    *new_value.decor_mut() = decor;
                }
                *existing = Item::Value(new_value);
            }
            None => {
                table.insert(key, Item::Value(new_value));
            }
        }
    }
}

/// Whether the TOML `item` already holds `wanted`.
fn same_value(item: &Item, wanted: &Value) -> bool {
    let text = match item {
        Item::Value(value) => value.to_string(),
        _ => return false,
    };
    toml::from_str::<toml::Table>(&format!("v = {text}"))
        .ok()
        .and_then(|table| serde_json::to_value(&table["v"]).ok())
        .is_some_and(|current| &current == wanted)
}

/// A JSON value as TOML; `None` for null (TOML has none), also inside arrays and tables.
fn toml_value(value: &Value) -> Option<toml_edit::Value> {
    Some(match value {
        Value::Null => return None,
        Value::Bool(flag) => (*flag).into(),
        Value::Number(number) => match number.as_i64() {
            Some(int) => int.into(),
            None => number.as_f64().unwrap_or_default().into(),
        },
        Value::String(text) => text.as_str().into(),
        Value::Array(items) => {
            let array: toml_edit::Array = items.iter().filter_map(toml_value).collect();
            toml_edit::Value::Array(array)
        }
        Value::Object(object) => {
            let mut table = toml_edit::InlineTable::new();
            for (key, value) in object {
                if let Some(value) = toml_value(value) {
                    table.insert(key, value);
                }
            }
            toml_edit::Value::InlineTable(table)
        }
    })
}

/// A TOML table's text (the raw mode of the console's form) as JSON.
pub(crate) fn parse_table(text: &str) -> Result<JsonObject, PluginConfigError> {
    let table: toml::Table = toml::from_str(text).map_err(|err| PluginConfigError::RawSyntax {
        message: err.to_string().trim().to_owned(),
    })?;
    match serde_json::to_value(table) {
        Ok(Value::Object(object)) => Ok(object),
        _ => Ok(JsonObject::new()),
    }
}

/// `config` as the text of a TOML table, for the raw mode.
pub(crate) fn table_text(config: &JsonObject) -> String {
    let mut document = DocumentMut::new();
    for (key, value) in config {
        if let Some(value) = toml_value(value) {
            document.insert(key, Item::Value(value));
        }
    }
    document.to_string()
}

#[cfg(test)]
mod tests;
