use serde_json::json;

use super::*;

#[test]
fn openai_chat_renders_function_tools() {
    let rendered = render_tools(ModelApi::OpenAiChat, &[weather_tool(), clock_tool()]);
    assert_eq!(
        rendered,
        json!([
            {"type": "function", "function": {
                "name": "get_weather",
                "description": "Current weather for a city.",
                "parameters": weather_parameters()
            }},
            {"type": "function", "function": {
                "name": "get_time",
                "description": "The current time.",
                "parameters": {"type": "object", "properties": {}}
            }}
        ])
    );
}

#[test]
fn openai_chat_completes_partial_object_schemas() {
    let tools = [
        ToolDefinition {
            name: "untyped".into(),
            description: "  ".into(),
            parameters_schema: Some(object(json!({"properties": {"q": {"type": "string"}}}))),
        },
        ToolDefinition {
            name: "bare".into(),
            description: String::new(),
            parameters_schema: Some(object(json!({"type": "object"}))),
        },
    ];
    let rendered = render_tools(ModelApi::OpenAiChat, &tools);
    assert_eq!(
        rendered,
        json!([
            {"type": "function", "function": {
                "name": "untyped",
                "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}
            }},
            {"type": "function", "function": {
                "name": "bare",
                "parameters": {"type": "object", "properties": {}}
            }}
        ])
    );
}

#[test]
fn openai_responses_renders_flat_function_tools() {
    let rendered = render_tools(ModelApi::OpenAiResponses, &[weather_tool(), clock_tool()]);
    assert_eq!(
        rendered,
        json!([
            {
                "type": "function",
                "name": "get_weather",
                "description": "Current weather for a city.",
                "parameters": weather_parameters(),
                "strict": false
            },
            {
                "type": "function",
                "name": "get_time",
                "description": "The current time.",
                "parameters": {"type": "object", "properties": {}},
                "strict": false
            }
        ])
    );
}

#[test]
fn anthropic_renders_input_schema_tools() {
    let rendered = render_tools(ModelApi::Anthropic, &[weather_tool(), clock_tool()]);
    assert_eq!(
        rendered,
        json!([
            {
                "name": "get_weather",
                "description": "Current weather for a city.",
                "input_schema": weather_parameters()
            },
            {
                "name": "get_time",
                "description": "The current time.",
                "input_schema": {"type": "object", "properties": {}}
            }
        ])
    );
}

#[test]
fn gemini_renders_one_tool_with_function_declarations() {
    let empty_object = ToolDefinition {
        name: "ping".into(),
        description: "Ping.".into(),
        parameters_schema: Some(object(json!({"type": "object", "properties": {}}))),
    };
    let rendered = render_tools(
        ModelApi::Gemini,
        &[weather_tool(), clock_tool(), empty_object],
    );
    assert_eq!(
        rendered,
        json!([{"functionDeclarations": [
            {
                "name": "get_weather",
                "description": "Current weather for a city.",
                "parameters": weather_parameters()
            },
            {"name": "get_time", "description": "The current time."},
            {"name": "ping", "description": "Ping."}
        ]}])
    );
}

#[test]
fn every_api_renders_no_tools_as_an_empty_list() {
    for api in ModelApi::ALL {
        assert_eq!(render_tools(api, &[]), json!([]), "{api}");
    }
}
