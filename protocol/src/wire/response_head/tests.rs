use serde_json::json;

use super::{HeadFields, ResponseHead, encode_outgoing};
use crate::JsonObject;
use crate::wire::{
    Envelope, EnvelopeHeader, ErrorBody, ErrorCode, MessageType, PROTOCOL_VERSION, decode_header,
    encode_envelope, now_ms,
};

fn request() -> EnvelopeHeader {
    EnvelopeHeader {
        protocol_version: "1.0.0".into(),
        request_id: 1_000_042,
        message_type: MessageType::Request,
        method: "plugin.invoke_tool".into(),
        plugin_id: "demo".into(),
        timestamp_ms: 1,
        timeout_ms: 60_000,
        error: None,
    }
}

fn payload() -> JsonObject {
    json!({"success": true, "content": "hello"})
        .as_object()
        .unwrap()
        .clone()
}

#[test]
fn a_success_is_what_the_serde_encoding_of_the_envelope_is() {
    let head = ResponseHead::for_request(&request());
    let before = now_ms();
    let frame = head
        .finish(&rmp_serde::to_vec_named(&payload()).unwrap(), None)
        .unwrap();
    let stamped = decode_header(&frame).unwrap().timestamp_ms;
    assert!(stamped >= before, "stamped when finished");
    let mut expected = Envelope::response_to(&request(), payload());
    expected.timestamp_ms = stamped;
    assert_eq!(frame, encode_envelope(&expected).unwrap());
}

#[test]
fn an_error_is_what_the_serde_encoding_of_the_error_response_is() {
    let body = ErrorBody::new(ErrorCode::Timeout, "request plugin.invoke_tool timed out");
    let head = ResponseHead::for_request(&request());
    let frame = head.finish(&[0x80], Some(&body)).unwrap();
    let header = decode_header(&frame).unwrap();
    assert_eq!(header.error.as_ref(), Some(&body));
    let mut expected = Envelope::error_response_to(&request(), body);
    expected.timestamp_ms = header.timestamp_ms;
    assert_eq!(frame, encode_envelope(&expected).unwrap());
}

#[test]
fn one_head_answers_twice_and_keeps_the_request_identity() {
    let head = ResponseHead::for_request(&request());
    assert_eq!(head.method(), "plugin.invoke_tool");
    assert_eq!(head.request_id(), 1_000_042);
    // A reply that could not be sent as built is replaced by an error from the same head.
    let first = head.finish(&[0x80], None).unwrap();
    let second = head
        .finish(&[0x80], Some(&ErrorBody::new(ErrorCode::BadPayload, "no")))
        .unwrap();
    for frame in [first, second] {
        let header = decode_header(&frame).unwrap();
        assert_eq!(
            (header.request_id, &*header.method, &*header.plugin_id),
            (1_000_042, "plugin.invoke_tool", "demo")
        );
        assert_eq!(header.message_type, MessageType::Response);
        assert_eq!(header.timeout_ms, 60_000);
    }
}

#[test]
fn requests_and_broadcasts_are_what_the_serde_encoding_of_the_envelope_is() {
    for (message_type, timeout_ms) in [(MessageType::Request, 60_000), (MessageType::Broadcast, 0)]
    {
        let fields = HeadFields {
            message_type,
            protocol_version: PROTOCOL_VERSION,
            request_id: 1_000_042,
            method: "plugin.invoke_tool",
            plugin_id: "demo",
            timeout_ms,
        };
        let before = now_ms();
        let frame = encode_outgoing(&fields, &payload()).unwrap();
        let stamped = decode_header(&frame).unwrap().timestamp_ms;
        assert!(stamped >= before, "stamped when encoded");
        let mut expected = match message_type {
            MessageType::Request => Envelope::request(
                1_000_042,
                "plugin.invoke_tool",
                "demo",
                timeout_ms,
                payload(),
            ),
            _ => Envelope::broadcast(1_000_042, "plugin.invoke_tool", "demo", payload()),
        };
        expected.timestamp_ms = stamped;
        assert_eq!(
            frame,
            encode_envelope(&expected).unwrap(),
            "{message_type:?}"
        );
    }
}

#[test]
fn frames_larger_and_smaller_than_the_last_one_are_encoded_whole() {
    let fields = HeadFields {
        message_type: MessageType::Request,
        protocol_version: PROTOCOL_VERSION,
        request_id: 7,
        method: "m",
        plugin_id: "p",
        timeout_ms: 1_000,
    };
    // The next buffer starts at half again the last frame's length, whatever that was.
    for len in [10, 5_000, 3, 200_000, 40] {
        let text = "x".repeat(len);
        let frame = encode_outgoing(&fields, &text).unwrap();
        assert_eq!(
            super::next_capacity(),
            (frame.len() * 3 / 2).clamp(64, 64 * 1024)
        );
        let decoded: String = crate::wire::decode_envelope::<String>(&frame)
            .unwrap()
            .payload;
        assert_eq!(decoded, text);
    }
}
