//! Tests of the model-facing view, one file per concern; shared fixtures live here.

mod gemini_schema;
mod parse_anthropic_gemini;
mod parse_openai;
mod render;
mod robustness;
mod round_trip;

use serde_json::{Value, json};

use super::{ModelApi, ToolCallParseError, parse_tool_calls, render_tools};
use maitool_protocol::ToolDefinition;
use maitool_protocol::model::{JsonObject, ToolInvocation};

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(object) => object,
        other => panic!("not an object: {other}"),
    }
}

fn weather_tool() -> ToolDefinition {
    ToolDefinition {
        name: "get_weather".into(),
        description: "Current weather for a city.".into(),
        parameters_schema: Some(object(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name"},
                "days": {"type": "integer", "minimum": 1}
            },
            "required": ["city"]
        }))),
    }
}

fn clock_tool() -> ToolDefinition {
    ToolDefinition {
        name: "get_time".into(),
        description: "The current time.".into(),
        parameters_schema: None,
    }
}

fn weather_parameters() -> Value {
    json!({
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name"},
            "days": {"type": "integer", "minimum": 1}
        },
        "required": ["city"]
    })
}

fn args(value: Value) -> JsonObject {
    object(value)
}

fn chat_message() -> Value {
    json!({
        "role": "assistant",
        "content": null,
        "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\",\"days\":2}"}},
            {"id": "call_2", "type": "function",
             "function": {"name": "get_time", "arguments": ""}}
        ]
    })
}

fn expected_pair() -> Vec<ToolInvocation> {
    vec![
        ToolInvocation::new("get_weather", args(json!({"city": "Paris", "days": 2})))
            .with_call_id("call_1"),
        ToolInvocation::new("get_time", JsonObject::new()).with_call_id("call_2"),
    ]
}

// ---- ModelApi ----

#[test]
fn model_api_names_parse_and_serialize() {
    for api in ModelApi::ALL {
        assert_eq!(api.as_str().parse::<ModelApi>(), Ok(api));
        assert_eq!(serde_json::to_value(api).unwrap(), json!(api.as_str()));
        assert_eq!(api.to_string(), api.as_str());
    }
    let aliases = [
        ("openai", ModelApi::OpenAiChat),
        ("chat", ModelApi::OpenAiChat),
        ("OpenAI-Chat", ModelApi::OpenAiChat),
        ("responses", ModelApi::OpenAiResponses),
        ("openai_responses", ModelApi::OpenAiResponses),
        ("claude", ModelApi::Anthropic),
        (" Anthropic ", ModelApi::Anthropic),
        ("google", ModelApi::Gemini),
        ("gemini", ModelApi::Gemini),
    ];
    for (name, api) in aliases {
        assert_eq!(name.parse::<ModelApi>(), Ok(api), "{name}");
    }
    let err = "llama".parse::<ModelApi>().unwrap_err();
    assert!(err.to_string().contains("`llama`"), "{err}");
    for (name, api) in [
        ("openai_responses", ModelApi::OpenAiResponses),
        ("claude", ModelApi::Anthropic),
    ] {
        let decoded: ModelApi = serde_json::from_value(json!(name)).unwrap();
        assert_eq!(decoded, api);
    }
}
