use serde_json::json;

use super::*;

#[test]
fn anthropic_parses_tool_use_blocks() {
    let message = json!({
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "stop_reason": "tool_use",
        "content": [
            {"type": "thinking", "thinking": "...", "signature": "s"},
            {"type": "text", "text": "Let me check."},
            {"type": "tool_use", "id": "call_1", "name": "get_weather",
             "input": {"city": "Paris", "days": 2}},
            {"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {"query": "x"}},
            {"type": "tool_use", "id": "call_2", "name": "get_time", "input": {}}
        ]
    });
    for raw in [&message, &message["content"]] {
        assert_eq!(
            parse_tool_calls(ModelApi::Anthropic, raw).unwrap(),
            expected_pair()
        );
    }
    let text_only = json!({"role": "assistant", "content": "plain"});
    assert_eq!(
        parse_tool_calls(ModelApi::Anthropic, &text_only).unwrap(),
        []
    );
}

#[test]
fn anthropic_accepts_accumulated_streaming_input() {
    let raw = json!([{"type": "tool_use", "id": "c", "name": "f", "input": "{\"a\": [1]}"}]);
    let calls = parse_tool_calls(ModelApi::Anthropic, &raw).unwrap();
    assert_eq!(calls[0].arguments, args(json!({"a": [1]})));
}

#[test]
fn anthropic_malformed_blocks() {
    let cases = [
        (
            json!([{"type": "text", "text": "x"}, {"type": "tool_use", "id": "c", "name": "f", "input": [1]}]),
            ToolCallParseError::ArgumentsNotObject {
                index: 1,
                tool: "f".into(),
                found: "an array",
            },
        ),
        (
            json!([{"type": "tool_use", "id": "c", "input": {}}]),
            ToolCallParseError::MissingField {
                index: 0,
                field: "name",
            },
        ),
        (
            json!([{"type": "tool_use", "name": "f", "input": {}}]),
            ToolCallParseError::MissingField {
                index: 0,
                field: "id",
            },
        ),
        (
            json!([{"type": "tool_use", "id": "c", "name": "f"}]),
            ToolCallParseError::MissingField {
                index: 0,
                field: "input",
            },
        ),
    ];
    for (raw, expected) in cases {
        assert_eq!(
            parse_tool_calls(ModelApi::Anthropic, &raw),
            Err(expected),
            "{raw}"
        );
    }
    let err = parse_tool_calls(
        ModelApi::Anthropic,
        &json!([{"type": "tool_use", "id": "c", "name": "f", "input": "{bad"}]),
    )
    .unwrap_err();
    assert!(
        matches!(&err, ToolCallParseError::MalformedArguments { index: 0, tool, .. } if tool == "f")
    );
}

#[test]
fn gemini_parses_function_call_parts() {
    let response = json!({
        "candidates": [{
            "content": {
                "role": "model",
                "parts": [
                    {"text": "Checking."},
                    {"functionCall": {"id": "call_1", "name": "get_weather",
                                      "args": {"city": "Paris", "days": 2}},
                     "thoughtSignature": "c2ln"},
                    {"functionCall": {"name": "get_time"}}
                ]
            },
            "finishReason": "STOP"
        }]
    });
    let mut expected = expected_pair();
    expected[0]
        .metadata
        .insert("thought_signature".into(), json!("c2ln"));
    // No id from the model: `<name>-<index of the part>`.
    expected[1].call_id = "get_time-2".into();
    let content = &response["candidates"][0]["content"];
    for raw in [&response, content, &content["parts"]] {
        assert_eq!(parse_tool_calls(ModelApi::Gemini, raw).unwrap(), expected);
    }
}

#[test]
fn gemini_answers_without_calls() {
    for raw in [
        json!({"candidates": []}),
        json!({"candidates": [{"finishReason": "SAFETY"}]}),
        json!({"promptFeedback": {"blockReason": "SAFETY"}, "candidates": null}),
        json!({"role": "model"}),
        json!({"parts": [{"text": "hello"}]}),
    ] {
        assert_eq!(
            parse_tool_calls(ModelApi::Gemini, &raw).unwrap(),
            [],
            "{raw}"
        );
    }
}

#[test]
fn gemini_repeated_calls_get_distinct_ids() {
    let raw = json!([
        {"functionCall": {"name": "roll", "args": {}}},
        {"functionCall": {"name": "roll", "args": {}}}
    ]);
    let ids: Vec<String> = parse_tool_calls(ModelApi::Gemini, &raw)
        .unwrap()
        .into_iter()
        .map(|call| call.call_id)
        .collect();
    assert_eq!(ids, ["roll-0", "roll-1"]);
}

#[test]
fn gemini_malformed_parts() {
    let cases = [
        (
            json!([{"text": "x"}, {"functionCall": {"name": "f", "args": [1, 2]}}]),
            ToolCallParseError::ArgumentsNotObject {
                index: 1,
                tool: "f".into(),
                found: "an array",
            },
        ),
        (
            json!([{"functionCall": {"args": {}}}]),
            ToolCallParseError::MissingField {
                index: 0,
                field: "functionCall.name",
            },
        ),
        (
            json!([{"functionCall": "f"}]),
            ToolCallParseError::InvalidField {
                index: 0,
                field: "functionCall",
                expected: "an object",
                found: "a string",
            },
        ),
    ];
    for (raw, expected) in cases {
        assert_eq!(
            parse_tool_calls(ModelApi::Gemini, &raw),
            Err(expected),
            "{raw}"
        );
    }
}
