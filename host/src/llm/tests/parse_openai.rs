use serde_json::json;

use super::*;

#[test]
fn openai_chat_parses_message_completion_and_bare_array() {
    let message = chat_message();
    let completion = json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}]
    });
    for raw in [&message, &completion, &message["tool_calls"]] {
        assert_eq!(
            parse_tool_calls(ModelApi::OpenAiChat, raw).unwrap(),
            expected_pair()
        );
    }
}

#[test]
fn openai_chat_text_answers_have_no_calls() {
    for raw in [
        json!({"role": "assistant", "content": "Hello"}),
        json!({"role": "assistant", "content": "Hi", "tool_calls": null}),
        json!({"choices": []}),
        json!([]),
    ] {
        assert_eq!(parse_tool_calls(ModelApi::OpenAiChat, &raw).unwrap(), []);
    }
}

#[test]
fn openai_chat_accepts_object_arguments_from_compatible_servers() {
    let raw = json!([{"id": "c", "function": {"name": "f", "arguments": {"x": 1}}}]);
    let calls = parse_tool_calls(ModelApi::OpenAiChat, &raw).unwrap();
    assert_eq!(calls[0].arguments, args(json!({"x": 1})));
}

#[test]
fn openai_chat_malformed_arguments_name_tool_and_index() {
    let raw = json!([
        {"id": "c0", "type": "function", "function": {"name": "ok", "arguments": "{}"}},
        {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Par"}}
    ]);
    let err = parse_tool_calls(ModelApi::OpenAiChat, &raw).unwrap_err();
    assert!(
        matches!(&err, ToolCallParseError::MalformedArguments { index: 1, tool, .. } if tool == "get_weather"),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(
        message.contains("tool call 1") && message.contains("get_weather"),
        "{message}"
    );
}

#[test]
fn openai_chat_non_object_arguments_are_rejected() {
    for (arguments, found) in [
        (json!("[1, 2]"), "an array"),
        (json!("\"text\""), "a string"),
        (json!("null"), "null"),
        (json!(42), "a number"),
    ] {
        let raw = json!([{"id": "c", "function": {"name": "f", "arguments": arguments}}]);
        assert_eq!(
            parse_tool_calls(ModelApi::OpenAiChat, &raw),
            Err(ToolCallParseError::ArgumentsNotObject {
                index: 0,
                tool: "f".into(),
                found
            })
        );
    }
}

#[test]
fn openai_chat_missing_and_invalid_fields() {
    let cases = [
        (
            json!([{"id": "c", "function": {"arguments": "{}"}}]),
            ToolCallParseError::MissingField {
                index: 0,
                field: "function.name",
            },
        ),
        (
            json!([{"id": "c", "function": {"name": "", "arguments": "{}"}}]),
            ToolCallParseError::MissingField {
                index: 0,
                field: "function.name",
            },
        ),
        (
            json!([{"function": {"name": "f", "arguments": "{}"}}]),
            ToolCallParseError::MissingField {
                index: 0,
                field: "id",
            },
        ),
        (
            json!([{"id": "c", "function": {"name": "f"}}]),
            ToolCallParseError::MissingField {
                index: 0,
                field: "function.arguments",
            },
        ),
        (
            json!([{"id": "c"}]),
            ToolCallParseError::MissingField {
                index: 0,
                field: "function",
            },
        ),
        (
            json!([{"id": "c", "function": "f"}]),
            ToolCallParseError::InvalidField {
                index: 0,
                field: "function",
                expected: "an object",
                found: "a string",
            },
        ),
        (
            json!([{"id": 7, "function": {"name": "f", "arguments": "{}"}}]),
            ToolCallParseError::InvalidField {
                index: 0,
                field: "id",
                expected: "a string",
                found: "a number",
            },
        ),
        (
            json!([{"id": "c", "type": "custom", "custom": {"name": "f", "input": "x"}}]),
            ToolCallParseError::UnsupportedCallType {
                index: 0,
                kind: "custom".into(),
            },
        ),
        (
            json!(["call"]),
            ToolCallParseError::NotAnObject {
                index: 0,
                found: "a string",
            },
        ),
    ];
    for (raw, expected) in cases {
        assert_eq!(
            parse_tool_calls(ModelApi::OpenAiChat, &raw),
            Err(expected),
            "{raw}"
        );
    }
}

#[test]
fn every_api_rejects_inputs_of_the_wrong_shape() {
    for api in ModelApi::ALL {
        for raw in [
            json!("text"),
            json!(3),
            json!(null),
            json!({"unrelated": 1}),
        ] {
            match parse_tool_calls(api, &raw) {
                Err(ToolCallParseError::UnexpectedShape { api: got, .. }) => assert_eq!(got, api),
                other => panic!("{api} on {raw}: {other:?}"),
            }
        }
    }
    let err = parse_tool_calls(ModelApi::OpenAiChat, &json!({"tool_calls": "x"})).unwrap_err();
    assert!(
        err.to_string().contains("`tool_calls` as a string"),
        "{err}"
    );
}

#[test]
fn openai_responses_parses_function_call_items() {
    let response = json!({
        "id": "resp_1",
        "object": "response",
        "output": [
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather",
             "arguments": "{\"city\":\"Paris\",\"days\":2}", "status": "completed"},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "hi"}]},
            {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "get_time",
             "arguments": "{}", "status": "completed"}
        ]
    });
    let mut expected = expected_pair();
    expected[0].metadata.insert("item_id".into(), json!("fc_1"));
    expected[1].metadata.insert("item_id".into(), json!("fc_2"));
    for raw in [&response, &response["output"]] {
        assert_eq!(
            parse_tool_calls(ModelApi::OpenAiResponses, raw).unwrap(),
            expected
        );
    }
}

#[test]
fn openai_responses_malformed_items() {
    let cases = [
        (
            json!([{"type": "message"}, {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{oops"}]),
            "MalformedArguments",
        ),
        (
            json!([{"type": "function_call", "call_id": "c", "name": "f", "arguments": "[]"}]),
            "ArgumentsNotObject",
        ),
        (
            json!([{"type": "function_call", "call_id": "c", "arguments": "{}"}]),
            "MissingField name",
        ),
        (
            json!([{"type": "function_call", "name": "f", "arguments": "{}"}]),
            "MissingField call_id",
        ),
    ];
    for (raw, case) in cases {
        let err = parse_tool_calls(ModelApi::OpenAiResponses, &raw).unwrap_err();
        let matched = match case {
            "MalformedArguments" => matches!(
                &err,
                ToolCallParseError::MalformedArguments { index: 1, tool, .. } if tool == "f"
            ),
            "ArgumentsNotObject" => matches!(
                &err,
                ToolCallParseError::ArgumentsNotObject {
                    index: 0,
                    found: "an array",
                    ..
                }
            ),
            "MissingField name" => {
                err == ToolCallParseError::MissingField {
                    index: 0,
                    field: "name",
                }
            }
            _ => {
                err == ToolCallParseError::MissingField {
                    index: 0,
                    field: "call_id",
                }
            }
        };
        assert!(matched, "{case}: {err:?}");
    }
}
