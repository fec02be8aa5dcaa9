//! JSON Schema to Gemini's schema dialect.
//!
//! Gemini's `parameters` is not JSON Schema but a subset of the OpenAPI 3.0 schema object, and
//! the API answers 400 for the whole request on a single unknown key (`additionalProperties`,
//! `$ref`, `const`, ...) or a type list. One tool with such a schema (common in MCP servers and
//! pydantic output) would take every tool down, so schemas are rewritten rather than passed
//! through: only the documented keys are kept, `$ref`s into `$defs`/`definitions` are inlined,
//! unions are flattened to `anyOf` plus `nullable`, and values Gemini types more narrowly
//! (string enums, a few formats) are adapted.

use std::collections::HashMap;

use serde_json::Value;

use maitool_protocol::model::JsonObject;

/// Deeper schemas are cut off; no real tool nests this far, and the limit keeps the recursion
/// bounded whatever the input.
const MAX_DEPTH: usize = 48;
/// How many `$ref`s may be expanded inside one another.
const MAX_REF_NESTING: usize = 8;
/// How many `$ref`s may be expanded in one schema, so that definitions referring to each other
/// several times cannot blow the output up exponentially.
const MAX_INLINES: usize = 256;

/// The `parameters` of a Gemini function declaration, or `None` when the tool takes no
/// arguments: Gemini rejects an object schema with empty `properties`.
pub(super) fn parameters(schema: Option<&JsonObject>) -> Option<JsonObject> {
    let schema = schema?;
    let mut converter = Converter::new(schema);
    let mut out = converter.convert(schema, 0);
    // Gemini insists on an object at the root. A union of argument shapes there becomes one
    // object offering every branch's properties, none of them required.
    out.remove("nullable");
    if let Some(Value::Array(branches)) = out.remove("anyOf") {
        let mut properties = match out.remove("properties") {
            Some(Value::Object(mine)) => mine,
            _ => JsonObject::new(),
        };
        for branch in &branches {
            if let Some(Value::Object(theirs)) = branch.get("properties") {
                for (name, schema) in theirs {
                    properties
                        .entry(name.clone())
                        .or_insert_with(|| schema.clone());
                }
            }
        }
        out.insert("properties".into(), Value::Object(properties));
        out.remove("required");
    }
    if !out.contains_key("type") {
        out.insert("type".into(), Value::from("object"));
    }
    let takes_nothing = out.get("type").and_then(Value::as_str) == Some("object")
        && out
            .get("properties")
            .and_then(Value::as_object)
            .is_none_or(JsonObject::is_empty);
    (!takes_nothing).then_some(out)
}

struct Converter<'a> {
    /// Local definitions by the `$ref` that points at them, e.g. `#/$defs/Point`.
    definitions: HashMap<String, &'a JsonObject>,
    /// The references being expanded, innermost last.
    expanding: Vec<String>,
    inlined: usize,
}

impl<'a> Converter<'a> {
    fn new(root: &'a JsonObject) -> Self {
        let mut definitions = HashMap::new();
        for section in ["$defs", "definitions"] {
            if let Some(Value::Object(defs)) = root.get(section) {
                for (name, def) in defs {
                    if let Value::Object(def) = def {
                        let escaped = name.replace('~', "~0").replace('/', "~1");
                        definitions.insert(format!("#/{section}/{escaped}"), def);
                    }
                }
            }
        }
        Self {
            definitions,
            expanding: Vec::new(),
            inlined: 0,
        }
    }

    fn convert(&mut self, schema: &JsonObject, depth: usize) -> JsonObject {
        if depth > MAX_DEPTH {
            return JsonObject::new();
        }
        if let Some(Value::String(reference)) = schema.get("$ref") {
            return self.convert_ref(reference, schema, depth);
        }
        if let Some(Value::Array(parts)) = schema.get("allOf") {
            let mut merged = schema.clone();
            merged.remove("allOf");
            for part in parts.iter().filter_map(Value::as_object) {
                let part = self.convert(part, depth + 1);
                merge_into(&mut merged, part);
            }
            return self.convert(&merged, depth + 1);
        }
        self.convert_plain(schema, depth)
    }

    /// Inlines a local reference, with the referring schema's own keys (usually a description)
    /// taking precedence. A recursive or unknown reference cannot be written in Gemini's
    /// dialect; it keeps only the target's type, or is dropped.
    fn convert_ref(&mut self, reference: &str, schema: &JsonObject, depth: usize) -> JsonObject {
        let mut siblings = schema.clone();
        siblings.remove("$ref");
        let Some(target) = self.definitions.get(reference).copied() else {
            return self.convert(&siblings, depth + 1);
        };
        let expandable = !self.expanding.iter().any(|r| r == reference)
            && self.expanding.len() < MAX_REF_NESTING
            && self.inlined < MAX_INLINES;
        if !expandable {
            for key in ["type", "description"] {
                if let (false, Some(value)) = (siblings.contains_key(key), target.get(key)) {
                    siblings.insert(key.into(), value.clone());
                }
            }
            return self.convert(&siblings, depth + 1);
        }
        self.inlined += 1;
        self.expanding.push(reference.to_owned());
        let mut merged = target.clone();
        merged.extend(siblings);
        let out = self.convert(&merged, depth + 1);
        self.expanding.pop();
        out
    }

    fn convert_plain(&mut self, schema: &JsonObject, depth: usize) -> JsonObject {
        let mut nullable = schema.get("nullable") == Some(&Value::Bool(true));
        let mut types: Vec<String> = match schema.get("type") {
            Some(Value::String(kind)) if !kind.is_empty() => vec![kind.clone()],
            Some(Value::Array(kinds)) => kinds
                .iter()
                .filter_map(Value::as_str)
                .filter(|kind| !kind.is_empty())
                .map(str::to_owned)
                .collect(),
            _ => Vec::new(),
        };
        if types.len() > 1 && types.iter().any(|kind| kind == "null") {
            nullable = true;
            types.retain(|kind| kind != "null");
        }

        // A union collapses into its single non-null branch (`Optional[T]` in pydantic), so
        // the common case needs no `anyOf` at all.
        let mut out = JsonObject::new();
        let union = schema.get("anyOf").or_else(|| schema.get("oneOf"));
        if let Some(Value::Array(branches)) = union {
            let mut converted: Vec<JsonObject> = branches
                .iter()
                .filter_map(Value::as_object)
                .map(|branch| self.convert(branch, depth + 1))
                .collect();
            let before = converted.len();
            converted.retain(|branch| branch.get("type").and_then(Value::as_str) != Some("null"));
            nullable |= converted.len() < before;
            // A branch that constrains nothing (such as `{"required": [..]}` once Gemini's
            // keys are kept) admits every value, and so does the whole union.
            if converted.iter().any(|branch| !constrains(branch)) {
                converted.clear();
            }
            if converted.len() == 1 {
                out = converted.remove(0);
            } else if !converted.is_empty() {
                out.insert(
                    "anyOf".into(),
                    Value::Array(converted.into_iter().map(Value::Object).collect()),
                );
            }
        }

        let mut required: Vec<Value> = Vec::new();
        for (key, value) in schema {
            match (key.as_str(), value) {
                ("description" | "pattern", Value::String(_))
                | ("minimum" | "maximum", Value::Number(_))
                | ("default" | "example", _) => {
                    out.insert(key.clone(), value.clone());
                }
                (
                    "minItems" | "maxItems" | "minLength" | "maxLength" | "minProperties"
                    | "maxProperties",
                    Value::Number(number),
                ) if number.is_u64() => {
                    out.insert(key.clone(), value.clone());
                }
                ("propertyOrdering", Value::Array(names)) if names.iter().all(Value::is_string) => {
                    out.insert(key.clone(), value.clone());
                }
                ("properties", Value::Object(properties)) => {
                    let properties = self.convert_properties(properties, depth);
                    out.insert(key.clone(), Value::Object(properties));
                }
                ("items", Value::Object(items)) => {
                    let items = self.convert(items, depth + 1);
                    out.insert(key.clone(), Value::Object(items));
                }
                // A tuple schema has no Gemini form; its first element is the best single guess.
                ("items", Value::Array(tuple)) => {
                    if let Some(first) = tuple.iter().find_map(Value::as_object) {
                        let items = self.convert(first, depth + 1);
                        out.insert(key.clone(), Value::Object(items));
                    }
                }
                ("enum", Value::Array(values)) => {
                    let values = string_enum(values, &mut nullable);
                    if !values.is_empty() {
                        out.insert(key.clone(), Value::Array(values));
                    }
                }
                ("required", Value::Array(names)) => required = names.clone(),
                _ => {}
            }
        }
        if !out.contains_key("enum")
            && let Some(value) = schema.get("const")
        {
            let values = string_enum(std::slice::from_ref(value), &mut nullable);
            if !values.is_empty() {
                out.insert("enum".into(), Value::Array(values));
            }
        }

        // Gemini rejects `required` names that its `properties` do not define.
        if let Some(Value::Object(properties)) = out.get("properties") {
            required.retain(|name| name.as_str().is_some_and(|n| properties.contains_key(n)));
            if !required.is_empty() {
                out.insert("required".into(), Value::Array(required));
            }
        }

        if types.is_empty() && !out.contains_key("anyOf") && !out.contains_key("type") {
            if out.contains_key("properties") {
                types.push("object".into());
            } else if out.contains_key("items") {
                types.push("array".into());
            } else if out.contains_key("enum") {
                types.push("string".into());
            }
        }
        match types.len() {
            0 => {}
            1 => {
                out.insert("type".into(), Value::from(types[0].as_str()));
            }
            _ => split_type_union(&mut out, &types),
        }
        add_missing_items(&mut out);
        if let Some(Value::String(format)) = schema.get("format") {
            adapt_format(&mut out, format);
        }
        if nullable {
            out.insert("nullable".into(), Value::Bool(true));
        }
        out
    }

    fn convert_properties(&mut self, properties: &JsonObject, depth: usize) -> JsonObject {
        properties
            .iter()
            .filter_map(|(name, schema)| {
                let converted = match schema {
                    Value::Object(schema) => self.convert(schema, depth + 1),
                    // `false` forbids the property: leaving it out says the same.
                    Value::Bool(false) => return None,
                    _ => JsonObject::new(),
                };
                Some((name.clone(), Value::Object(converted)))
            })
            .collect()
    }
}

/// Whether a converted schema restricts the values it admits.
fn constrains(schema: &JsonObject) -> bool {
    ["type", "anyOf", "properties", "items", "enum"]
        .iter()
        .any(|key| schema.contains_key(*key))
}

/// Folds a converted `allOf` part into the schema that holds it: properties and required
/// names accumulate, any other key keeps the holder's value.
fn merge_into(base: &mut JsonObject, part: JsonObject) {
    for (key, value) in part {
        match (key.as_str(), base.get_mut(&key), value) {
            ("properties", Some(Value::Object(mine)), Value::Object(theirs)) => {
                for (name, schema) in theirs {
                    mine.entry(name).or_insert(schema);
                }
            }
            ("required", Some(Value::Array(mine)), Value::Array(theirs)) => {
                for name in theirs {
                    if !mine.contains(&name) {
                        mine.push(name);
                    }
                }
            }
            (_, Some(_), _) => {}
            (_, None, value) => {
                base.insert(key, value);
            }
        }
    }
}

/// Gemini enums are lists of strings, also for numeric types; `null` among the values means
/// the schema is nullable.
fn string_enum(values: &[Value], nullable: &mut bool) -> Vec<Value> {
    values
        .iter()
        .filter_map(|value| match value {
            Value::String(text) => Some(Value::from(text.as_str())),
            Value::Number(number) => Some(Value::from(number.to_string())),
            Value::Bool(flag) => Some(Value::from(flag.to_string())),
            Value::Null => {
                *nullable = true;
                None
            }
            Value::Array(_) | Value::Object(_) => None,
        })
        .collect()
}

/// A type list such as `["string", "integer"]` becomes one `anyOf` branch per type, each
/// carrying the keys that only make sense for it.
fn split_type_union(out: &mut JsonObject, types: &[String]) {
    if out.contains_key("anyOf") {
        return;
    }
    let branches = types
        .iter()
        .map(|kind| {
            let mut branch = JsonObject::new();
            branch.insert("type".into(), Value::from(kind.as_str()));
            let owned: &[&str] = match kind.as_str() {
                "object" => &["properties", "required"],
                "array" => &["items"],
                _ => &[],
            };
            for key in owned {
                if let Some(value) = out.get(*key) {
                    branch.insert((*key).into(), value.clone());
                }
            }
            add_missing_items(&mut branch);
            Value::Object(branch)
        })
        .collect();
    for key in ["properties", "required", "items"] {
        out.remove(key);
    }
    out.insert("anyOf".into(), Value::Array(branches));
}

/// Gemini requires `items` on an array schema. Strings are the one item type every value can
/// be written as, so an untyped array becomes an array of strings.
fn add_missing_items(schema: &mut JsonObject) {
    if schema.get("type").and_then(Value::as_str) == Some("array") && !schema.contains_key("items")
    {
        let mut items = JsonObject::new();
        items.insert("type".into(), Value::from("string"));
        schema.insert("items".into(), Value::Object(items));
    }
}

/// Keeps the formats Gemini supports for the schema's type. An unsupported string format
/// (email, uri, ...) still tells the model something, so it moves into the description.
fn adapt_format(out: &mut JsonObject, format: &str) {
    let kind = out.get("type").and_then(Value::as_str).unwrap_or_default();
    let supported = match kind {
        "string" => matches!(format, "enum" | "date-time"),
        "number" => matches!(format, "float" | "double"),
        "integer" => matches!(format, "int32" | "int64"),
        _ => false,
    };
    if supported {
        out.insert("format".into(), Value::from(format));
    } else if kind == "string" && !format.is_empty() {
        let description = match out.get("description").and_then(Value::as_str) {
            Some(text) if !text.trim().is_empty() => format!("{text} (format: {format})"),
            _ => format!("Format: {format}"),
        };
        out.insert("description".into(), Value::from(description));
    }
}
