//! JSON Schema dialects of MCP tool schemas: every schema is exposed as 2020-12, the MCP
//! default, with no `$schema` (some model APIs reject the key).
//!
//! Dropping `$schema` alone would change what an older schema means: TypeScript-SDK servers
//! declare draft-07, where `items: [A, B]` is a tuple and `additionalItems` constrains the
//! rest; read as 2020-12, that `items` is not a schema at all, the schema does not compile,
//! and arguments go unchecked. So a schema that declares draft-04, -06, -07 or 2019-09 is
//! rewritten into the 2020-12 keywords that mean the same:
//!
//! | declared | 2020-12 |
//! |---|---|
//! | `items: [..]`, `additionalItems: S` | `prefixItems: [..]`, `items: S` |
//! | `dependencies: {k: [..]}` / `{k: S}` | `dependentRequired` / `dependentSchemas` |
//! | draft-04 `exclusiveMaximum: true` with `maximum: M` (and minimum) | `exclusiveMaximum: M` |
//! | `definitions` | kept (`$ref: "#/definitions/.."` resolves as a JSON pointer) |
//!
//! [`compile_problem`] says whether the result compiles, for the server's `status`.

use maitool_protocol::JsonObject;
use serde_json::Value;

/// `schema` as 2020-12 without `$schema`.
pub fn to_2020_12(mut schema: JsonObject) -> JsonObject {
    let declared = schema.remove("$schema");
    let older = declared
        .as_ref()
        .and_then(Value::as_str)
        .is_some_and(|uri| {
            ["draft-04", "draft-06", "draft-07", "2019-09"]
                .iter()
                .any(|draft| uri.contains(draft))
        });
    if older {
        let draft4 = declared
            .as_ref()
            .and_then(Value::as_str)
            .is_some_and(|uri| uri.contains("draft-04"));
        rewrite(&mut schema, draft4);
    }
    schema
}

/// Why `schema` does not compile as 2020-12, if it does not.
pub fn compile_problem(schema: &JsonObject) -> Option<String> {
    jsonschema::validator_for(&Value::Object(schema.clone()))
        .err()
        .map(|err| err.to_string())
}

fn rewrite(schema: &mut JsonObject, draft4: bool) {
    if let Some(Value::Array(_)) = schema.get("items") {
        let tuple = schema.remove("items").unwrap_or_default();
        schema.insert("prefixItems".to_owned(), tuple);
        if let Some(rest) = schema.remove("additionalItems") {
            schema.insert("items".to_owned(), rest);
        }
    } else {
        // Without a tuple, `additionalItems` has no effect in any draft.
        schema.remove("additionalItems");
    }
    if let Some(Value::Object(dependencies)) = schema.remove("dependencies") {
        let (mut required, mut schemas) = (JsonObject::new(), JsonObject::new());
        for (key, value) in dependencies {
            if value.is_array() {
                required.insert(key, value);
            } else {
                schemas.insert(key, value);
            }
        }
        if !required.is_empty() {
            schema.insert("dependentRequired".to_owned(), Value::Object(required));
        }
        if !schemas.is_empty() {
            schema.insert("dependentSchemas".to_owned(), Value::Object(schemas));
        }
    }
    if draft4 {
        for (flag, bound) in [
            ("exclusiveMaximum", "maximum"),
            ("exclusiveMinimum", "minimum"),
        ] {
            match schema.get(flag) {
                Some(Value::Bool(true)) => {
                    if let Some(limit) = schema.remove(bound) {
                        schema.insert(flag.to_owned(), limit);
                    } else {
                        schema.remove(flag);
                    }
                }
                Some(Value::Bool(false)) => {
                    schema.remove(flag);
                }
                _ => {}
            }
        }
    }
    for (key, value) in schema.iter_mut() {
        match key.as_str() {
            // Maps of subschemas.
            "properties" | "patternProperties" | "definitions" | "$defs" | "dependentSchemas" => {
                if let Value::Object(map) = value {
                    map.values_mut().for_each(|sub| rewrite_value(sub, draft4));
                }
            }
            // Lists of subschemas.
            "allOf" | "anyOf" | "oneOf" | "prefixItems" => {
                if let Value::Array(list) = value {
                    list.iter_mut().for_each(|sub| rewrite_value(sub, draft4));
                }
            }
            // Single subschemas.
            "items"
            | "additionalProperties"
            | "contains"
            | "not"
            | "if"
            | "then"
            | "else"
            | "propertyNames"
            | "unevaluatedItems"
            | "unevaluatedProperties" => rewrite_value(value, draft4),
            _ => {}
        }
    }
}

fn rewrite_value(value: &mut Value, draft4: bool) {
    if let Value::Object(schema) = value {
        rewrite(schema, draft4);
    }
}

#[cfg(test)]
mod tests;
