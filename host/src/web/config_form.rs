//! A plugin's configuration as a form generated from its JSON Schema (a field per property,
//! fieldsets for nested objects) and as raw TOML; and a submitted form read back by the same
//! schema. The handlers that check and save it are in `config_save`.

use std::collections::HashMap;

use maitool_protocol::JsonObject;
use maud::{Markup, html};
use serde_json::{Value, json};

use crate::error_text::chain;
use crate::plugin_config::{
    FieldError, PluginConfigError, PluginConfigs, REDACTED, is_secret_key, redacted, schema,
};

/// A submitted form to show again: its values and what is wrong with them.
#[derive(Debug, Default)]
pub(super) struct FormState {
    pub values: Option<JsonObject>,
    pub errors: Vec<FieldError>,
    pub raw: Option<String>,
    pub raw_error: Option<String>,
}

/// A field's place in the form: the dotted path of its key.
fn field_name(path: &[&str]) -> String {
    path.join(".")
}

/// The id of a field's error element.
pub(super) fn error_id(name: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("err-{safe}")
}

/// A JSON pointer (`/a/b`) as a field name (`a.b`).
pub(super) fn pointer_to_name(pointer: &str) -> String {
    pointer
        .trim_start_matches('/')
        .split('/')
        .map(|part| part.replace("~1", "/").replace("~0", "~"))
        .collect::<Vec<_>>()
        .join(".")
}

/// `schema` with a local `$ref` (`#/$defs/X`, `#/definitions/X`) followed.
fn resolve<'s>(root: &'s Value, schema: &'s Value) -> &'s Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => reference
            .strip_prefix('#')
            .and_then(|pointer| root.pointer(pointer))
            .unwrap_or(schema),
        None => schema,
    }
}

/// The schema's type, the first that is not `null` of a list.
fn kind(schema: &Value) -> &str {
    match schema.get("type") {
        Some(Value::String(kind)) => kind,
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .find(|k| *k != "null")
            .unwrap_or(""),
        _ if schema.get("enum").is_some() => "enum",
        _ if schema.get("properties").is_some() => "object",
        _ => "",
    }
}

/// The form of plugin `id`.
pub(super) fn render(configs: &PluginConfigs, id: &str, form: &FormState) -> Markup {
    let view = match configs.view(id) {
        Ok(view) => view,
        Err(err) => return html! { p.error { (chain(&err)) } },
    };
    let values = redacted(form.values.as_ref().unwrap_or(&view.current));
    let errors: HashMap<String, String> = form
        .errors
        .iter()
        .map(|e| (pointer_to_name(&e.path), e.message.clone()))
        .collect();
    let general: Vec<&FieldError> = form.errors.iter().filter(|e| e.path.is_empty()).collect();
    let action = format!("/plugins/{id}/config");
    let raw_text = form
        .raw
        .clone()
        .unwrap_or_else(|| configs.raw_text(id).unwrap_or_default());
    html! {
        @match &view.json_schema {
            Some(root) if root.get("properties").is_some() => {
                form #config-form method="post" action=(action)
                    hx-post={ (action) "/check" } hx-trigger="input delay:300ms, change" hx-swap="none" {
                    span id="err-form" class="field-error" {
                        @for error in &general { (error.message) br; }
                    }
                    (fields(root, root, &values, &errors, &mut Vec::new()))
                    p { button type="submit" { "Save and apply" } }
                }
            }
            _ => p.muted { "This plugin reports no configuration schema: edit it as TOML below." }
        }
        details open[form.raw.is_some()] {
            summary { "Raw TOML" }
            p.muted { "Saved only if it parses and fits the plugin's schema. Secrets show as " (REDACTED) " and keep their value unless you replace it." }
            @if let Some(problem) = &form.raw_error { p.error #raw-error { (problem) } }
            form method="post" action={ (action) "/raw" } {
                textarea name="raw" #raw-config { (raw_text) }
                p { button type="submit" { "Save TOML" } }
            }
        }
    }
}

/// The inputs of `schema`'s properties, under `path`.
fn fields<'s>(
    root: &'s Value,
    schema: &'s Value,
    values: &JsonObject,
    errors: &HashMap<String, String>,
    path: &mut Vec<&'s str>,
) -> Markup {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return html! {};
    };
    let mut out = String::new();
    for (key, property) in properties {
        let property = resolve(root, property);
        path.push(key.as_str());
        let name = field_name(path);
        let value = values.get(key);
        let title = property.get("title").and_then(Value::as_str).unwrap_or(key);
        let description = property.get("description").and_then(Value::as_str);
        let field = if kind(property) == "object" && property.get("properties").is_some() {
            let inner = value
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            let nested = fields(root, property, &inner, errors, path);
            html! {
                fieldset {
                    legend { (title) }
                    @if let Some(description) = description { p.muted { (description) } }
                    (nested)
                }
            }
        } else {
            html! {
                div.field {
                    label for=(name) { (title) }
                    (input(&name, key, property, value))
                    @if let Some(description) = description { div.muted { (description) } }
                    span id=(error_id(&name)) class="field-error" { (errors.get(&name).map(String::as_str).unwrap_or("")) }
                }
            }
        };
        out.push_str(&field.into_string());
        path.pop();
    }
    maud::PreEscaped(out)
}

/// One input for a scalar (or a JSON text for anything else).
fn input(name: &str, key: &str, property: &Value, value: Option<&Value>) -> Markup {
    let text = match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(items)) if kind(property) == "array" => items
            .iter()
            .map(|item| {
                item.as_str()
                    .map_or_else(|| item.to_string(), str::to_owned)
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Some(other) => other.to_string(),
    };
    let secret = is_secret_key(key) || property.get("writeOnly") == Some(&json!(true));
    if let Some(options) = property.get("enum").and_then(Value::as_array) {
        return html! {
            select id=(name) name=(name) {
                @for option in options {
                    @let shown = option.as_str().map_or_else(|| option.to_string(), str::to_owned);
                    option value=(shown) selected[shown == text] { (shown) }
                }
            }
        };
    }
    match kind(property) {
        "boolean" => html! {
            input type="hidden" name=(name) value="false";
            input type="checkbox" id=(name) name=(name) value="true" checked[value == Some(&Value::Bool(true))];
        },
        "array" => html! {
            textarea id=(name) name=(name) rows="3" { (text) }
            div.muted { "One item per line." }
        },
        _ if secret => html! {
            input type="password" id=(name) name=(name) value="" placeholder="unchanged" autocomplete="off";
        },
        // Text, not `number`: the server checks the value, so the browser's own checks never
        // keep a wrong value from reaching it (and its message from showing).
        _ => html! { input type="text" id=(name) name=(name) value=(text); },
    }
}

/// The submitted pairs as a configuration, starting from `current` (keys the schema does not
/// describe are kept), and the fields that do not even convert.
fn parse(
    root: &Value,
    current: &JsonObject,
    pairs: &[(String, String)],
) -> (JsonObject, Vec<FieldError>) {
    // The last value of a name wins: a checked checkbox comes after its hidden `false`.
    let submitted: HashMap<&str, &str> = pairs
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let mut config = current.clone();
    let mut errors = Vec::new();
    convert(
        root,
        root,
        &submitted,
        &mut config,
        &mut Vec::new(),
        &mut errors,
    );
    (config, errors)
}

fn convert<'s>(
    root: &'s Value,
    schema: &'s Value,
    submitted: &HashMap<&str, &str>,
    into: &mut JsonObject,
    path: &mut Vec<&'s str>,
    errors: &mut Vec<FieldError>,
) {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    for (key, property) in properties {
        let property = resolve(root, property);
        path.push(key);
        let name = field_name(path);
        if kind(property) == "object" && property.get("properties").is_some() {
            let mut inner = into
                .get(key)
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            convert(root, property, submitted, &mut inner, path, errors);
            into.insert(key.clone(), Value::Object(inner));
        } else if let Some(text) = submitted.get(name.as_str()) {
            match scalar(property, text) {
                Ok(Some(value)) => {
                    into.insert(key.clone(), value);
                }
                // Left empty: the plugin's default.
                Ok(None) => {
                    into.remove(key);
                }
                Err(message) => errors.push(FieldError {
                    path: format!("/{}", path.join("/")),
                    message,
                }),
            }
        }
        path.pop();
    }
}

/// A field's text as its schema's type; `None` for an empty optional value.
fn scalar(property: &Value, text: &str) -> Result<Option<Value>, String> {
    let trimmed = text.trim();
    if property.get("enum").is_some() {
        let options = property["enum"].as_array().cloned().unwrap_or_default();
        return Ok(options
            .into_iter()
            .find(|o| o.as_str().map_or_else(|| o.to_string(), str::to_owned) == text)
            .or_else(|| Some(Value::String(text.to_owned()))));
    }
    match kind(property) {
        "boolean" => Ok(Some(Value::Bool(trimmed == "true"))),
        "integer" if trimmed.is_empty() => Ok(None),
        "integer" => trimmed
            .parse::<i64>()
            .map(|n| Some(json!(n)))
            .map_err(|_| format!("{trimmed:?} is not a whole number")),
        "number" if trimmed.is_empty() => Ok(None),
        "number" => trimmed
            .parse::<f64>()
            .ok()
            .and_then(|n| serde_json::Number::from_f64(n).map(Value::Number))
            .map(Some)
            .ok_or_else(|| format!("{trimmed:?} is not a number")),
        "array" => {
            let item = property.get("items").unwrap_or(&Value::Null);
            text.lines()
                .map(str::trim)
                .filter(|line| !line.is_empty())
                .map(|line| scalar(item, line).map(|v| v.unwrap_or(Value::Null)))
                .collect::<Result<Vec<_>, _>>()
                .map(|items| Some(Value::Array(items)))
        }
        "string" | "enum" => Ok(Some(Value::String(text.to_owned()))),
        _ if trimmed.is_empty() => Ok(None),
        // Anything else is written as JSON; a plain word is taken as a string.
        _ => Ok(Some(
            serde_json::from_str(trimmed).unwrap_or_else(|_| Value::String(text.to_owned())),
        )),
    }
}

/// The submitted form as a configuration, with every problem: conversions, then the schema.
pub(super) fn checked(
    configs: &PluginConfigs,
    id: &str,
    pairs: &[(String, String)],
) -> Result<(JsonObject, Vec<FieldError>), PluginConfigError> {
    let view = configs.view(id)?;
    let Some(root) = &view.json_schema else {
        return Ok((view.current, Vec::new()));
    };
    let (config, mut errors) = parse(root, &view.current, pairs);
    if errors.is_empty() {
        errors = schema::validate(root, &config);
    }
    Ok((config, errors))
}

#[cfg(test)]
mod tests;
