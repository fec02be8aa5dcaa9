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
        // A MaiBot-style result nested deeper than one level.
        json!({"success": true, "result": {"content_items": [{"type": "text", "text": "x"}]}}),
        json!({"success": true, "result": [[true]]}),
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

/// `{"success": <success>, "result": <result bytes>}`, the result written by hand.
fn maibot_answer(success: bool, result: &[u8]) -> Vec<u8> {
    let mut bytes = vec![0x82, 0xa7];
    bytes.extend_from_slice(b"success");
    bytes.push(if success { 0xc3 } else { 0xc2 });
    bytes.push(0xa6);
    bytes.extend_from_slice(b"result");
    bytes.extend_from_slice(result);
    bytes
}

fn written(write: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut bytes = Vec::new();
    write(&mut bytes);
    bytes
}

#[test]
fn what_a_maibot_runner_answers_is_walked_to_what_serde_decodes() {
    let results = [
        // What MaiBot plugins return: a dict of scalars, a (bool, message) pair, a value.
        json!({"content": "hello"}),
        json!({"success": false, "error": "it broke", "message": "m", "stop_after_execution": false}),
        json!({"content": "", "count": 3, "ratio": 0.5, "missing": null}),
        json!([true, "done"]),
        json!([false, null]),
        json!("plain text"),
        json!(42),
        json!(-7),
        json!(2.5),
        json!(true),
        json!({}),
        json!([]),
        json!({"long": "x".repeat(300), "wide": u64::MAX, "low": i64::MIN, "negative": -129}),
    ];
    for result in results {
        for success in [true, false] {
            let bytes = encode(&json!({"success": success, "result": result}));
            let decoded = serde_decode(&bytes).unwrap();
            assert_eq!(decoded.result.as_ref(), Some(&result));
            assert_eq!(walk(&bytes), Some(decoded), "{result}");
        }
    }
    // A nil result is no result, as `Option<Value>` reads it.
    let bytes = encode(&json!({"success": true, "result": null}));
    assert_eq!(walk(&bytes), Some(serde_decode(&bytes).unwrap()));
    assert_eq!(walk(&bytes).unwrap().result, None);
}

#[test]
fn every_scalar_encoding_is_read_as_serde_reads_it() {
    let raw: Vec<Vec<u8>> = vec![
        // A float32 widens to the f64 serde's visitor gets; a non-finite float becomes null.
        written(|b| rmp::encode::write_f32(b, 1.1).unwrap()),
        written(|b| rmp::encode::write_f64(b, f64::NAN).unwrap()),
        written(|b| rmp::encode::write_f32(b, f32::INFINITY).unwrap()),
        // Every integer width, signed markers holding non-negative values included.
        vec![0xcc, 0xff],
        vec![0xcd, 0x01, 0x00],
        vec![0xce, 0xff, 0xff, 0xff, 0xff],
        vec![0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
        vec![0xd0, 0x05],
        vec![0xd0, 0x80],
        vec![0xd1, 0xff, 0x00],
        vec![0xd2, 0x80, 0x00, 0x00, 0x00],
        vec![0xd3, 0x80, 0, 0, 0, 0, 0, 0, 0],
        vec![0xe0],
        vec![0x7f],
        // Strings of each width.
        written(|b| rmp::encode::write_str(b, "short").unwrap()),
        [vec![0xd9, 3], b"abc".to_vec()].concat(),
        [vec![0xda, 0, 3], b"abc".to_vec()].concat(),
        [vec![0xdb, 0, 0, 0, 3], b"abc".to_vec()].concat(),
        // A map with a key twice: serde's map keeps the last value.
        [vec![0x82, 0xa1, b'k', 0x01, 0xa1, b'k', 0x02]].concat(),
        // Arrays of 16 and 32 bits' length.
        vec![0xdc, 0, 2, 0xc3, 0xa0],
        vec![0xdd, 0, 0, 0, 1, 0xc2],
    ];
    for result in raw {
        let bytes = maibot_answer(true, &result);
        let decoded = serde_decode(&bytes).unwrap();
        assert_eq!(walk(&bytes), Some(decoded), "{result:02x?}");
    }
}

#[test]
fn maibot_results_the_walk_does_not_read_are_left_to_serde() {
    let raw: Vec<Vec<u8>> = vec![
        // bin, an extension value, a non-string key, a string that is not UTF-8.
        vec![0xc4, 1, 0xff],
        vec![0xd4, 1, 0],
        vec![0x81, 0x01, 0x02],
        vec![0x81, 0xa1, b'k', 0xa1, 0xff],
        vec![0x81, 0xa1, 0xff, 0x01],
        // Truncated: a map that announces more entries than it holds, a cut string.
        vec![0x82, 0xa1, b'k', 0x01],
        vec![0xa5, b'a', b'b'],
        // A map or an array inside the result.
        vec![0x81, 0xa1, b'k', 0x80],
        vec![0x91, 0x90],
    ];
    for result in raw {
        let bytes = maibot_answer(true, &result);
        assert_eq!(walk(&bytes), None, "{result:02x?}");
        // Whichever way serde takes it, the decode as a whole says the same.
        let frame = Bytes::from(bytes.clone());
        let decoded = InvokeResultPayload::at(&frame, &PayloadAt::Range(0..bytes.len()));
        match serde_decode(&bytes) {
            Ok(payload) => assert_eq!(decoded.unwrap(), payload),
            Err(err) => assert!(decoded.unwrap_err().to_string().ends_with(&err.to_string())),
        }
    }
    // `result` twice at the payload's level: serde refuses a duplicate field.
    let mut twice = maibot_answer(true, &[0xc3]);
    twice[0] = 0x83;
    twice.extend_from_slice(&[0xa6]);
    twice.extend_from_slice(b"result");
    twice.push(0xc2);
    assert_eq!(walk(&twice), None);
    assert!(serde_decode(&twice).is_err());
}
