use serde_json::Value;

use crate::wire::test_frames::{broken_request, nested_arrays};
use crate::wire::{
    EnvelopeHeader, MAX_NESTING_DEPTH, MessageType, WireError, decode_header, decode_payload,
    encode_response_raw, recover_request_id,
};

/// `{"v": <payload value>}`, the value given as raw MessagePack.
fn map_of(value: &[u8]) -> Vec<u8> {
    let mut bytes = vec![0x81, 0xa1, b'v'];
    bytes.extend_from_slice(value);
    bytes
}

fn request() -> EnvelopeHeader {
    EnvelopeHeader {
        protocol_version: "1.0.0".into(),
        request_id: 7,
        message_type: MessageType::Request,
        method: "plugin.invoke_tool".into(),
        plugin_id: "p".into(),
        timestamp_ms: 0,
        timeout_ms: 1000,
        error: None,
    }
}

/// A response whose payload is `payload` (raw MessagePack).
fn response_with(payload: &[u8]) -> Vec<u8> {
    encode_response_raw(&request(), payload).unwrap().to_vec()
}

fn is_depth_error(err: &WireError) -> bool {
    matches!(
        err,
        WireError::Decode(rmp_serde::decode::Error::DepthLimitExceeded)
    )
}

#[test]
fn a_payload_may_nest_up_to_the_limit_and_no_deeper() {
    // The envelope and the payload map take two levels.
    let deepest = MAX_NESTING_DEPTH - 2;
    let frame = response_with(&map_of(&nested_arrays(deepest)));
    let payload: Value = decode_payload(&frame).expect("at the limit");
    let mut value = &payload["v"];
    let mut levels = 0;
    while let Some(inner) = value.get(0) {
        value = inner;
        levels += 1;
    }
    assert_eq!(levels, deepest);

    let frame = response_with(&map_of(&nested_arrays(deepest + 1)));
    let err = decode_payload::<Value>(&frame).unwrap_err();
    assert!(is_depth_error(&err), "{err}");
    assert_eq!(
        err.to_string(),
        "cannot decode message: depth limit exceeded"
    );
    // The header is still readable: the frame can be answered.
    assert_eq!(decode_header(&frame).unwrap().request_id, 7);
}

#[test]
fn an_unknown_envelope_key_nested_too_deep_fails_the_header_but_not_recovery() {
    let with_extra = |depth: usize| {
        let mut frame = response_with(&[0x80]);
        assert_eq!(frame[0], 0x89, "nine keys");
        frame[0] = 0x8a;
        frame.extend_from_slice(&[0xa5, b'e', b'x', b't', b'r', b'a']);
        frame.extend_from_slice(&nested_arrays(depth));
        frame
    };
    // The envelope takes one level.
    let header = decode_header(&with_extra(MAX_NESTING_DEPTH - 1)).expect("at the limit");
    assert_eq!(header.request_id, 7);

    let frame = with_extra(MAX_NESTING_DEPTH);
    let err = decode_header(&frame).unwrap_err();
    assert!(is_depth_error(&err), "{err}");
    let recovered = recover_request_id(&frame).expect("id and type are found by walking");
    assert_eq!(recovered.request_id, 7);
    assert_eq!(recovered.message_type.as_deref(), Some("response"));
}

#[test]
fn a_byte_after_the_map_does_not_send_the_walks_to_the_depth_limit() {
    // Found by fuzzing: the walk refused bytes after the map, and serde's decode of the whole
    // frame, its fallback, stopped in a payload nested past the limit. A broken request was
    // then not answered, since its id could not be recovered...
    let deep = nested_arrays(2 * MAX_NESTING_DEPTH);
    let frame = broken_request(78, Some(&deep), &[0xc0]);
    assert!(decode_header(&frame).is_err());
    let recovered = recover_request_id(&frame).expect("id and type are found by walking");
    assert_eq!(recovered.request_id, 78);
    assert_eq!(recovered.message_type.as_deref(), Some("request"));

    // ... and a sound header around a deep payload that is not the map's last entry was
    // refused as a header, where the payload alone is at fault.
    let mut frame = response_with(&[0x80]);
    let payload_key = [&[0xa7][..], b"payload"].concat();
    let at = frame
        .windows(payload_key.len())
        .position(|window| window == payload_key)
        .expect("a payload key")
        + payload_key.len();
    assert_eq!(frame.split_off(at), [0x80], "the payload is last");
    frame.extend_from_slice(&deep);
    frame.extend([0xa5, b'e', b'x', b't', b'r', b'a', 0x01]);
    frame[0] = 0x8a;
    frame.push(0xc0);
    assert_eq!(decode_header(&frame).unwrap().request_id, 7);
    let err = decode_payload::<Value>(&frame).unwrap_err();
    assert!(is_depth_error(&err), "{err}");
}

#[test]
fn a_hundred_thousand_nested_arrays_are_refused_on_a_small_stack() {
    // Tokio's worker threads have 2 MiB of stack; without the limit a debug build overflows
    // it at a few hundred levels and aborts the process.
    let outcome = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(|| {
            let deep = nested_arrays(100_000);
            let frame = response_with(&map_of(&deep));
            let payload = decode_payload::<Value>(&frame).unwrap_err();
            let whole: Result<Value, _> = super::from_slice(&frame);
            (is_depth_error(&payload), whole.is_err())
        })
        .unwrap()
        .join()
        .expect("no stack overflow");
    assert_eq!(outcome, (true, true));
}

#[test]
fn a_scalar_needs_no_levels() {
    assert_eq!(super::from_slice_within::<u64>(&[0x05], 0).unwrap(), 5);
    assert!(super::from_slice_within::<Value>(&[0x90], 0).is_err());
    assert_eq!(
        super::from_slice_within::<Value>(&[0x90], 1).unwrap(),
        Value::Array(Vec::new())
    );
}
