use serde_json::{Value, json};

use super::*;

/// An argument value that fits a (rendered) property schema.
fn sample_value(schema: &Value) -> Value {
    // A JSON Schema type list (`["integer", "null"]`) is sampled by its first type.
    let kind = match &schema["type"] {
        Value::Array(kinds) => kinds.first().and_then(Value::as_str),
        other => other.as_str(),
    };
    match kind {
        Some("integer") => json!(3),
        Some("number") => json!(1.5),
        Some("boolean") => json!(true),
        Some("array") => json!([sample_value(&schema["items"])]),
        Some("object") => json!({}),
        _ => json!("Paris"),
    }
}

/// Arguments for every property of a rendered schema.
fn sample_arguments(schema: Option<&Value>) -> JsonObject {
    schema
        .and_then(|s| s["properties"].as_object())
        .map(|properties| {
            properties
                .iter()
                .map(|(name, property)| (name.clone(), sample_value(property)))
                .collect()
        })
        .unwrap_or_default()
}

/// (name, parameters schema) of each rendered tool, read back from the API's own shape.
fn rendered_functions(api: ModelApi, rendered: &Value) -> Vec<(String, Option<Value>)> {
    let entries = match api {
        ModelApi::Gemini => rendered[0]["functionDeclarations"].as_array(),
        _ => rendered.as_array(),
    }
    .unwrap();
    entries
        .iter()
        .map(|entry| {
            let (name, schema) = match api {
                ModelApi::OpenAiChat => (
                    &entry["function"]["name"],
                    entry["function"].get("parameters"),
                ),
                ModelApi::OpenAiResponses => (&entry["name"], entry.get("parameters")),
                ModelApi::Anthropic => (&entry["name"], entry.get("input_schema")),
                ModelApi::Gemini => (&entry["name"], entry.get("parameters")),
            };
            (name.as_str().unwrap().to_owned(), schema.cloned())
        })
        .collect()
}

/// The answer a model of `api` gives when it calls each function with `arguments`.
pub(super) fn fake_model_answer(api: ModelApi, calls: &[(String, JsonObject)]) -> Value {
    let items = calls.iter().enumerate().map(|(i, (name, arguments))| {
        let text = Value::Object(arguments.clone()).to_string();
        match api {
            ModelApi::OpenAiChat => json!({"id": format!("call_{i}"), "type": "function",
                                           "function": {"name": name, "arguments": text}}),
            ModelApi::OpenAiResponses => {
                json!({"type": "function_call", "call_id": format!("call_{i}"),
                                                "name": name, "arguments": text})
            }
            ModelApi::Anthropic => json!({"type": "tool_use", "id": format!("call_{i}"),
                                          "name": name, "input": arguments}),
            ModelApi::Gemini => json!({"functionCall": {"id": format!("call_{i}"),
                                                        "name": name, "args": arguments}}),
        }
    });
    let items: Vec<Value> = items.collect();
    match api {
        ModelApi::OpenAiChat => {
            json!({"choices": [{"message": {"role": "assistant", "tool_calls": items}}]})
        }
        ModelApi::OpenAiResponses => json!({"object": "response", "output": items}),
        ModelApi::Anthropic => json!({"role": "assistant", "content": items}),
        ModelApi::Gemini => {
            json!({"candidates": [{"content": {"role": "model", "parts": items}}]})
        }
    }
}

#[test]
fn render_then_model_answer_then_parse_round_trips() {
    let list_tool = ToolDefinition {
        name: "tag_items".into(),
        description: "Tag items.".into(),
        parameters_schema: Some(object(json!({
            "type": "object",
            "properties": {
                "tags": {"type": "array", "items": {"type": "string"}},
                "limit": {"type": ["integer", "null"]},
                "dry_run": {"type": "boolean"}
            }
        }))),
    };
    let tools = [weather_tool(), clock_tool(), list_tool];
    for api in ModelApi::ALL {
        let rendered = render_tools(api, &tools);
        let functions = rendered_functions(api, &rendered);
        let names: Vec<&str> = functions.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(names, ["get_weather", "get_time", "tag_items"], "{api}");
        let calls: Vec<(String, JsonObject)> = functions
            .iter()
            .map(|(name, schema)| (name.clone(), sample_arguments(schema.as_ref())))
            .collect();
        assert_eq!(
            calls[0].1,
            args(json!({"city": "Paris", "days": 3})),
            "{api}"
        );
        assert_eq!(
            calls[2].1,
            args(json!({"tags": ["Paris"], "limit": 3, "dry_run": true})),
            "{api}"
        );
        let answer = fake_model_answer(api, &calls);
        let parsed = parse_tool_calls(api, &answer).unwrap();
        let expected: Vec<ToolInvocation> = calls
            .iter()
            .enumerate()
            .map(|(i, (name, arguments))| {
                ToolInvocation::new(name.as_str(), arguments.clone())
                    .with_call_id(format!("call_{i}"))
            })
            .collect();
        assert_eq!(parsed, expected, "{api}");
    }
}
