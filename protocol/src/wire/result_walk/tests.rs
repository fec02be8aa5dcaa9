use bytes::Bytes;
use serde_json::json;

use super::walk;
use crate::model::ToolExecutionResult;
use crate::wire::PayloadAt;
use crate::wire::methods::InvokeResultPayload;

fn encode<T: serde::Serialize>(value: &T) -> Vec<u8> {
    rmp_serde::to_vec_named(value).unwrap()
}

fn serde_decode(bytes: &[u8]) -> Result<InvokeResultPayload, rmp_serde::decode::Error> {
    rmp_serde::from_slice(bytes)
}

#[test]
fn what_a_maitool_runner_answers_is_walked_to_what_serde_decodes() {
    for result in [
        ToolExecutionResult::success("echo", "hello"),
        ToolExecutionResult::failure("echo", "it broke"),
        ToolExecutionResult::success("", ""),
    ] {
        let payload = InvokeResultPayload {
            success: true,
            result: None,
            tool_result: Some(result),
        };
        let bytes = encode(&payload);
        assert_eq!(walk(&bytes), Some(payload.clone()));
        assert_eq!(serde_decode(&bytes).unwrap(), payload);
    }
    let bare = InvokeResultPayload::default();
    assert_eq!(walk(&encode(&bare)), Some(bare));
}

#[test]
fn other_shapes_are_left_to_serde() {
    let cases = [
        // A MaiBot-style answer.
        json!({"success": true, "result": {"success": true, "content": "x"}}),
        // Fields the walk does not read.
        json!({"success": true, "tool_result": {"tool_name": "t", "success": true, "metadata": {"k": 1}}}),
        json!({"success": true, "tool_result": {"tool_name": "t", "structured_content": [1]}}),
        json!({"success": true, "extra": 1}),
        // Wrong types: serde refuses these, with its own wording.
        json!({"success": 1}),
        json!({"success": true, "tool_result": {"tool_name": 5}}),
        json!({"success": true, "tool_result": "text"}),
        json!([true]),
    ];
    for case in cases {
        assert_eq!(walk(&encode(&case)), None, "{case}");
    }
}

#[test]
fn a_key_twice_or_trailing_bytes_are_left_to_serde() {
    // {"success": true, "success": false}
    let twice = [
        0x82, 0xa7, b's', b'u', b'c', b'c', b'e', b's', b's', 0xc3, 0xa7, b's', b'u', b'c', b'c',
        b'e', b's', b's', 0xc2,
    ];
    assert_eq!(walk(&twice), None);
    assert!(
        serde_decode(&twice).is_err(),
        "serde refuses a duplicate field"
    );
    let mut trailing = encode(&InvokeResultPayload::default());
    trailing.push(0xc0);
    assert_eq!(walk(&trailing), None);
}

#[test]
fn the_decode_agrees_with_serde_on_both_paths() {
    let walked = encode(&InvokeResultPayload {
        success: true,
        result: None,
        tool_result: Some(ToolExecutionResult::success("echo", "hello")),
    });
    let fallback = encode(&json!({"success": false, "result": [false, "no"]}));
    for bytes in [walked, fallback] {
        let frame = Bytes::from(bytes.clone());
        let decoded = InvokeResultPayload::at(&frame, &PayloadAt::Range(0..bytes.len())).unwrap();
        assert_eq!(decoded, serde_decode(&bytes).unwrap());
    }
    let wrong = Bytes::from(encode(&json!({"success": "yes"})));
    let err = InvokeResultPayload::at(&wrong, &PayloadAt::Range(0..wrong.len())).unwrap_err();
    let serde_err = serde_decode(&wrong).unwrap_err();
    assert!(err.to_string().ends_with(&serde_err.to_string()), "{err}");
}
