use maitool_protocol::wire::methods::InvokeResultPayload;
use maitool_protocol::{ContentType, ToolExecutionResult};
use serde_json::json;

use super::normalize;

fn maibot(success: bool, value: serde_json::Value) -> InvokeResultPayload {
    InvokeResultPayload {
        success,
        result: Some(value),
        tool_result: None,
    }
}

#[test]
fn typed_result_is_kept_and_tagged_with_the_plugin() {
    let answer = InvokeResultPayload {
        success: true,
        result: None,
        tool_result: Some(ToolExecutionResult::success("", "hi")),
    };
    let result = normalize("echo", "p.x", answer);
    assert_eq!(result.tool_name, "echo");
    assert_eq!(result.content, "hi");
    assert_eq!(result.metadata["plugin_id"], "p.x");
}

#[test]
fn dict_result_maps_content_message_error_and_items() {
    let ok = normalize(
        "t",
        "p",
        maibot(
            true,
            json!({"message": " done ", "content_items": [{"type": "image", "data": "aGk=", "mime_type": "image/png"}]}),
        ),
    );
    assert!(ok.success);
    assert_eq!(ok.content, "done");
    assert_eq!(ok.content_items[0].content_type, ContentType::Image);
    assert_eq!(ok.content_items[0].data.0, b"hi");

    let failed = normalize(
        "t",
        "p",
        maibot(true, json!({"success": false, "error": "boom"})),
    );
    assert!(!failed.success);
    assert_eq!(failed.error_message, "boom");
    let no_error = normalize("t", "p", maibot(true, json!({"success": false})));
    assert_eq!(no_error.error_message, "tool t failed");
}

#[test]
fn pair_result_is_success_and_message() {
    let ok = normalize("t", "p", maibot(true, json!([true, "sent"])));
    assert!(ok.success);
    assert_eq!(ok.content, "sent");
    let failed = normalize("t", "p", maibot(true, json!([false, "no stream"])));
    assert!(!failed.success);
    assert_eq!(failed.error_message, "no stream");
}

#[test]
fn plain_values_become_text() {
    assert_eq!(normalize("t", "p", maibot(true, json!(42))).content, "42");
    assert_eq!(normalize("t", "p", maibot(true, json!(" x "))).content, "x");
    assert_eq!(
        normalize("t", "p", maibot(true, serde_json::Value::Null)).content,
        ""
    );
}

#[test]
fn raised_handler_is_a_failure_with_its_text() {
    let failed = normalize("t", "p", maibot(false, json!("ValueError: bad")));
    assert!(!failed.success);
    assert_eq!(failed.error_message, "ValueError: bad");
}

#[test]
fn unknown_item_type_is_unknown_not_an_error() {
    let result = normalize(
        "t",
        "p",
        maibot(
            true,
            json!({"content": "x", "content_items": [{"type": "hologram", "text": "?"}]}),
        ),
    );
    assert_eq!(result.content_items[0].content_type, ContentType::Unknown);
}

#[test]
fn a_dict_result_keeps_its_post_history_messages() {
    let message = json!({"role": "user", "content": "[note] later", "message_id": "n1"});
    let result = normalize(
        "remember",
        "p.x",
        maibot(
            true,
            json!({"success": true, "content": "noted", "post_history_messages": [message.clone()]}),
        ),
    );
    assert_eq!(result.content, "noted");
    assert_eq!(result.post_history_messages, vec![message]);
}

#[test]
fn a_dict_asks_to_stop_after_execution_with_a_boolean_only() {
    let stop = normalize(
        "t",
        "p",
        maibot(
            true,
            json!({"content": "done", "stop_after_execution": true}),
        ),
    );
    assert!(stop.success && stop.stop_after_execution, "{stop:?}");
    let plain = normalize("t", "p", maibot(true, json!({"content": "done"})));
    assert!(!plain.stop_after_execution);
    // As MaiBot: a flag that is not a boolean fails the call, whatever else it says.
    let bad = normalize(
        "t",
        "p",
        maibot(
            true,
            json!({"content": "done", "stop_after_execution": "yes"}),
        ),
    );
    assert!(!bad.success && !bad.stop_after_execution);
    assert_eq!(
        bad.error_message,
        "tool t returned stop_after_execution as a string; it must be a boolean"
    );
    assert_eq!(bad.structured_content.unwrap()["content"], "done");
    // A maitool runner's result carries the field itself.
    let typed = normalize(
        "t",
        "p",
        InvokeResultPayload {
            success: true,
            result: None,
            tool_result: Some(ToolExecutionResult::success("", "x").with_stop_after_execution()),
        },
    );
    assert!(typed.stop_after_execution);
}
