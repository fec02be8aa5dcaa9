use serde_json::{Value, json};

use super::*;

use super::round_trip::fake_model_answer;

/// A small deterministic generator (xorshift), so that the fuzz cases are reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &'a [&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const KEYS: &[&str] = &[
    "tool_calls",
    "choices",
    "message",
    "role",
    "content",
    "function",
    "name",
    "arguments",
    "id",
    "type",
    "output",
    "call_id",
    "input",
    "candidates",
    "parts",
    "functionCall",
    "args",
    "thoughtSignature",
    "properties",
    "items",
    "anyOf",
    "oneOf",
    "allOf",
    "$ref",
    "$defs",
    "definitions",
    "required",
    "enum",
    "const",
    "format",
    "nullable",
    "description",
];

const STRINGS: &[&str] = &[
    "",
    "function",
    "function_call",
    "tool_use",
    "custom",
    "object",
    "array",
    "string",
    "integer",
    "null",
    "{",
    "{}",
    "[]",
    "{\"a\":1}",
    "null",
    "\"x\"",
    "#/$defs/A",
    "#/definitions/B",
    "#/$defs/missing",
    "email",
    "date-time",
    "f",
];

fn random_value(rng: &mut Rng, depth: usize) -> Value {
    let choice = if depth >= 5 {
        rng.below(4)
    } else {
        rng.below(7)
    };
    match choice {
        0 => Value::Null,
        1 => Value::Bool(rng.below(2) == 0),
        2 => json!(rng.below(5) as i64 - 1),
        3 => Value::from(rng.pick(STRINGS)),
        4 => Value::Array(
            (0..rng.below(4))
                .map(|_| random_value(rng, depth + 1))
                .collect(),
        ),
        _ => {
            let mut object = JsonObject::new();
            for _ in 0..rng.below(6) {
                object.insert(rng.pick(KEYS).to_owned(), random_value(rng, depth + 1));
            }
            Value::Object(object)
        }
    }
}

/// Replaces one random subtree of `value` with random JSON.
fn mutate(value: &mut Value, rng: &mut Rng, depth: usize) {
    let children = match value {
        Value::Array(items) => items.len(),
        Value::Object(object) => object.len(),
        _ => 0,
    };
    if children == 0 || rng.below(4) == 0 {
        *value = random_value(rng, depth);
        return;
    }
    let pick = rng.below(children);
    let child = match value {
        Value::Array(items) => &mut items[pick],
        Value::Object(object) => object.values_mut().nth(pick).unwrap(),
        _ => unreachable!("only containers have children"),
    };
    mutate(child, rng, depth + 1);
}

/// Parses `raw` and checks the invariants of a successful parse; tells whether it produced calls.
fn check_parse(api: ModelApi, raw: &Value) -> Option<bool> {
    let calls = parse_tool_calls(api, raw).ok()?;
    for call in &calls {
        assert!(!call.tool_name.is_empty(), "{api} on {raw}");
        assert!(!call.call_id.is_empty(), "{api} on {raw}");
    }
    Some(!calls.is_empty())
}

#[test]
fn parsers_survive_random_and_mutated_answers() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let calls = vec![
        ("get_weather".to_owned(), args(json!({"city": "Paris"}))),
        ("get_time".to_owned(), JsonObject::new()),
    ];
    for api in ModelApi::ALL {
        let answer = fake_model_answer(api, &calls);
        let (mut with_calls, mut errors) = (0, 0);
        for _ in 0..3_000 {
            let mut mutated = answer.clone();
            mutate(&mut mutated, &mut rng, 0);
            match check_parse(api, &mutated) {
                Some(true) => with_calls += 1,
                Some(false) => {}
                None => errors += 1,
            }
            for other in ModelApi::ALL {
                check_parse(other, &mutated);
            }
            check_parse(api, &random_value(&mut rng, 0));
        }
        // The mutations must reach both the success and the error paths to mean anything.
        assert!(
            with_calls > 300 && errors > 300,
            "{api}: {with_calls} ok, {errors} errors"
        );
    }
}

const GEMINI_SCHEMA_KEYS: &[&str] = &[
    "type",
    "format",
    "description",
    "nullable",
    "enum",
    "items",
    "minItems",
    "maxItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "default",
    "anyOf",
    "propertyOrdering",
    "minimum",
    "maximum",
];

/// Asserts that `schema` only uses Gemini's schema keys, with a single string `type` and
/// `required` names that `properties` defines.
fn assert_gemini_schema(schema: &Value, context: &Value) {
    let schema = schema
        .as_object()
        .unwrap_or_else(|| panic!("schema not an object: {context}"));
    for (key, value) in schema {
        assert!(
            GEMINI_SCHEMA_KEYS.contains(&key.as_str()),
            "key {key} in {context}"
        );
        match key.as_str() {
            "type" => assert!(value.is_string(), "type {value} in {context}"),
            "properties" => {
                for property in value.as_object().unwrap().values() {
                    assert_gemini_schema(property, context);
                }
            }
            "items" => assert_gemini_schema(value, context),
            "anyOf" => {
                for branch in value.as_array().unwrap() {
                    assert_gemini_schema(branch, context);
                }
            }
            "enum" => assert!(
                value.as_array().unwrap().iter().all(Value::is_string),
                "enum {value} in {context}"
            ),
            "required" => {
                let properties = schema["properties"].as_object().unwrap();
                for name in value.as_array().unwrap() {
                    assert!(properties.contains_key(name.as_str().unwrap()), "{context}");
                }
            }
            _ => {}
        }
    }
    if schema.get("type").and_then(Value::as_str) == Some("array") {
        assert!(
            schema.contains_key("items"),
            "array without items in {context}"
        );
    }
}

const SCHEMA_KEYS: &[&str] = &[
    "type",
    "properties",
    "items",
    "anyOf",
    "oneOf",
    "allOf",
    "$ref",
    "required",
    "enum",
    "const",
    "format",
    "nullable",
    "description",
    "additionalProperties",
    "title",
    "minimum",
    "default",
    "$schema",
    "propertyOrdering",
];

/// Random schema-shaped JSON: mostly the keys a schema has, with values of mostly the right
/// kind, so that the converter's branches are reached rather than only its fallbacks.
fn random_schema(rng: &mut Rng, depth: usize) -> Value {
    if depth >= 4 || rng.below(10) == 0 {
        return random_value(rng, 4);
    }
    let mut schema = JsonObject::new();
    for _ in 0..rng.below(5) {
        let key = rng.pick(SCHEMA_KEYS);
        let value = match key {
            "properties" => {
                let mut properties = JsonObject::new();
                for _ in 0..1 + rng.below(3) {
                    let name = rng.pick(&["a", "b", "c"]).to_owned();
                    properties.insert(name, random_schema(rng, depth + 1));
                }
                Value::Object(properties)
            }
            "items" if rng.below(4) == 0 => json!([random_schema(rng, depth + 1)]),
            "items" => random_schema(rng, depth + 1),
            "anyOf" | "oneOf" | "allOf" => Value::Array(
                (0..rng.below(4))
                    .map(|_| random_schema(rng, depth + 1))
                    .collect(),
            ),
            "$ref" => json!(rng.pick(&["#/$defs/A", "#/definitions/B", "#/$defs/missing", "x"])),
            "type" if rng.below(3) == 0 => json!([
                rng.pick(&["string", "null", "object", "array"]),
                rng.pick(&["integer", "null", "object", "array"])
            ]),
            "type" => json!(rng.pick(&["object", "array", "string", "integer", "null", ""])),
            "required" => json!(["a", rng.pick(&["b", "z"])]),
            _ => random_value(rng, depth + 2),
        };
        schema.insert(key.to_owned(), value);
    }
    Value::Object(schema)
}

#[test]
fn renderers_survive_random_schemas_and_gemini_output_stays_in_dialect() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut with_parameters = 0;
    for _ in 0..5_000 {
        let mut schema = match random_schema(&mut rng, 0) {
            Value::Object(schema) => schema,
            _ => JsonObject::new(),
        };
        if rng.below(2) == 0 {
            schema.insert(
                "properties".into(),
                json!({"a": random_schema(&mut rng, 1)}),
            );
        }
        let mut defs = JsonObject::new();
        for name in ["A", "missing"] {
            if rng.below(2) == 0 {
                defs.insert(name.to_owned(), random_schema(&mut rng, 1));
            }
        }
        schema.insert("definitions".into(), json!({"B": defs.get("A")}));
        schema.insert("$defs".into(), Value::Object(defs));
        let tool = ToolDefinition {
            name: "t".into(),
            description: "d".into(),
            parameters_schema: Some(schema.clone()),
        };
        for api in ModelApi::ALL {
            let rendered = render_tools(api, std::slice::from_ref(&tool));
            assert_eq!(rendered.as_array().map(Vec::len), Some(1), "{api}");
        }
        let context = Value::Object(schema);
        let rendered = render_tools(ModelApi::Gemini, &[tool]);
        if let Some(parameters) = rendered[0]["functionDeclarations"][0].get("parameters") {
            assert_gemini_schema(parameters, &context);
            with_parameters += 1;
        }
    }
    assert!(
        with_parameters > 2_000,
        "only {with_parameters} schemas kept parameters"
    );
}
