//! Arbitrary frame bodies through the envelope decoders.
//!
//! `decode_header` and `decode_payload` walk the frame with their own MessagePack skipper
//! (`wire/skip.rs`) to avoid decoding it twice; whatever the bytes, they must agree with a
//! plain serde decode of the whole frame. A frame that decodes must survive being encoded
//! again (`encode_envelope`, and `encode_response_raw` for its response). A runner reads an
//! invocation with `InvokeView`, which leaves the arguments encoded: every frame serde
//! decodes as an `InvokePayload` must read the same through it. A host reads a tool's answer
//! with `InvokeResultPayload::from_frame`, which walks the common shape itself: it must
//! accept exactly the frames serde accepts, with the same values.
#![no_main]

use std::borrow::Cow;
use std::collections::BTreeMap;

use bytes::Bytes;
use libfuzzer_sys::fuzz_target;
use maitool_protocol::JsonObject;
use maitool_protocol::wire::methods::{InvokePayload, InvokeResultPayload};
use maitool_protocol::wire::{
    EmptyPayload, Envelope, EnvelopeHeader, ErrorBody, InvokeView, MessageType, WireError,
    decode_envelope, decode_header, decode_payload, encode_envelope, encode_response_raw,
    recover_request_id,
};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;

fuzz_target!(|frame: &[u8]| {
    let header = decode_header(frame);
    let payload = decode_payload::<Value>(frame);
    header_agrees_with_serde(frame, &header);
    payload_agrees_with_serde(frame, &payload);
    invoke_view_agrees_with_serde(frame);
    invoke_answer_agrees_with_serde(frame);
    let _ = decode_envelope::<EmptyPayload>(frame);

    if let (Ok(header), Ok(payload)) = (header, payload) {
        re_encoded(header, payload);
    }
});

/// The envelope header as MaiBot's protocol defines it, decoded by serde from the whole frame
/// (the payload skipped by `IgnoredAny`): the reference the fast path must match. It mirrors
/// `RawHeader` in `wire/envelope.rs`, defaults included.
#[derive(Deserialize)]
struct Reference<'a> {
    #[serde(default = "default_version")]
    protocol_version: String,
    request_id: u64,
    #[serde(borrow)]
    message_type: Cow<'a, str>,
    #[serde(default)]
    method: String,
    #[serde(default)]
    plugin_id: String,
    #[serde(default)]
    timestamp_ms: u64,
    #[serde(default = "default_timeout")]
    timeout_ms: u64,
    #[serde(default)]
    error: Option<ErrorBody>,
}

fn default_version() -> String {
    "1.0.0".to_owned()
}

fn default_timeout() -> u64 {
    30_000
}

/// Depth limits differ on purpose: serde's decode nests into the payload the fast path skips.
fn is_depth_error(err: &WireError) -> bool {
    matches!(
        err,
        WireError::Decode(rmp_serde::decode::Error::DepthLimitExceeded)
    ) || err.to_string().contains("depth")
}

fn header_agrees_with_serde(frame: &[u8], header: &Result<EnvelopeHeader, WireError>) {
    let reference = match rmp_serde::from_slice::<Reference>(frame) {
        Ok(reference) => reference,
        Err(_) => {
            if let Ok(header) = header {
                // Only a bad payload may pass the fast path alone: one nested past serde's
                // depth limit, or a malformed one in last place, which the walk leaves to the
                // payload's decoder. The frame as a whole is refused all the same.
                assert!(
                    rmp_serde::from_slice::<IgnoredAny>(frame).is_err(),
                    "fast path decoded a header serde rejects: {header:?}"
                );
                assert!(
                    decode_envelope::<IgnoredAny>(frame).is_err(),
                    "a frame serde rejects decoded whole: {header:?}"
                );
            }
            return;
        }
    };
    let message_type = match &*reference.message_type {
        "request" => MessageType::Request,
        "response" => MessageType::Response,
        "broadcast" => MessageType::Broadcast,
        unknown => {
            match header {
                Err(WireError::UnknownMessageType {
                    request_id,
                    message_type,
                }) => {
                    assert_eq!(*request_id, reference.request_id);
                    assert_eq!(message_type, unknown);
                }
                Err(err) if is_depth_error(err) => {}
                other => panic!("unknown message type {unknown:?} decoded as {other:?}"),
            }
            return;
        }
    };
    let header = match header {
        Ok(header) => header,
        Err(err) if is_depth_error(err) => return,
        Err(err) => panic!("serde decodes the header, the fast path fails: {err}"),
    };
    assert_eq!(header.protocol_version, reference.protocol_version);
    assert_eq!(header.request_id, reference.request_id);
    assert_eq!(header.message_type, message_type);
    assert_eq!(header.method, reference.method);
    assert_eq!(header.plugin_id, reference.plugin_id);
    assert_eq!(header.timestamp_ms, reference.timestamp_ms);
    assert_eq!(header.timeout_ms, reference.timeout_ms);
    assert_eq!(header.error, reference.error);

    // A sender whose header decodes can always be answered, with the same id and type.
    // Exception: serde reads integer map keys as field indices, and `RawHeader` and
    // recovery's own structs number their fields differently (a frame with `2: "request"`
    // has a message type for the one and none for the other); the protocol's keys are
    // strings, so only such frames must agree.
    if rmp_serde::from_slice::<BTreeMap<String, IgnoredAny>>(frame).is_err() {
        return;
    }
    let recovered = recover_request_id(frame)
        .expect("a decodable header with string keys has no recoverable request id");
    assert_eq!(recovered.request_id, header.request_id);
    assert_eq!(
        recovered.message_type.as_deref(),
        Some(message_type.as_str())
    );
}

fn payload_agrees_with_serde(frame: &[u8], payload: &Result<Value, WireError>) {
    #[derive(Deserialize)]
    struct PayloadOnly {
        payload: Option<Value>,
    }
    let Ok(reference) = rmp_serde::from_slice::<PayloadOnly>(frame) else {
        return;
    };
    let reference = reference
        .payload
        .unwrap_or_else(|| Value::Object(Default::default()));
    match payload {
        Ok(payload) => assert_eq!(*payload, reference, "payloads differ"),
        Err(err) if is_depth_error(err) => {}
        Err(err) => panic!("serde decodes the payload, decode_payload fails: {err}"),
    }
}

/// The answer walk and serde accept the same frames, with the same values.
fn invoke_answer_agrees_with_serde(frame: &[u8]) {
    let reference = decode_envelope::<InvokeResultPayload>(frame).map(|envelope| envelope.payload);
    let walked = InvokeResultPayload::from_frame(&Bytes::copy_from_slice(frame));
    match (reference, walked) {
        (Ok(reference), Ok(walked)) => assert_eq!(reference, walked, "the answer walk disagrees"),
        (Err(_), Err(_)) => {}
        (reference, walked) => {
            panic!("serde and the answer walk disagree: {reference:?} against {walked:?}")
        }
    }
}

/// Where serde decodes the frame as an invocation, the invocation view reads the same names,
/// context and arguments. (The view may accept more: what is inside `args` is only checked
/// when a tool decodes its arguments.)
fn invoke_view_agrees_with_serde(frame: &[u8]) {
    let Ok(reference) = decode_envelope::<InvokePayload>(frame) else {
        return;
    };
    let reference = reference.payload;
    let view = match InvokeView::from_frame(&Bytes::copy_from_slice(frame)) {
        Ok(view) => view,
        Err(err) => panic!("serde decodes the invocation, InvokeView fails: {err}"),
    };
    assert_eq!(view.component_name, reference.component_name);
    assert_eq!(view.call_id, reference.call_id);
    assert_eq!(view.context, reference.context);
    match view.args.decode::<JsonObject>() {
        Ok(args) => assert_eq!(args, reference.args, "arguments differ"),
        Err(err) if is_depth_error(&err) => {}
        Err(err) => panic!("serde decodes the arguments, the view's fail: {err}"),
    }
}

/// The decoded envelope, encoded again, decodes to itself; its raw-encoded response carries
/// the same identity and payload.
fn re_encoded(header: EnvelopeHeader, payload: Value) {
    let envelope = Envelope {
        protocol_version: header.protocol_version.to_string(),
        request_id: header.request_id,
        message_type: header.message_type,
        method: header.method.to_string(),
        plugin_id: header.plugin_id.to_string(),
        timestamp_ms: header.timestamp_ms,
        timeout_ms: header.timeout_ms,
        payload: payload.clone(),
        error: header.error.clone(),
    };
    let frame = encode_envelope(&envelope).expect("a decoded envelope encodes");
    assert_eq!(decode_header(&frame).expect("re-encoded header"), header);
    // A payload JSON reads as null (a float NaN or infinity: JSON has neither) is written as
    // nil, which the protocol reads as an absent payload, `{}` (PROTOCOL.md).
    let expected = match &payload {
        Value::Null => Value::Object(Default::default()),
        other => other.clone(),
    };
    assert_eq!(
        decode_payload::<Value>(&frame).expect("re-encoded payload"),
        expected
    );

    let raw = rmp_serde::to_vec_named(&payload).expect("a decoded payload encodes");
    let response = encode_response_raw(&header, &raw).expect("a response encodes");
    let answered = decode_header(&response).expect("raw response header");
    assert_eq!(answered.message_type, MessageType::Response);
    assert_eq!(answered.request_id, header.request_id);
    assert_eq!(answered.protocol_version, header.protocol_version);
    assert_eq!(answered.method, header.method);
    assert_eq!(answered.plugin_id, header.plugin_id);
    assert_eq!(answered.timeout_ms, header.timeout_ms);
    assert_eq!(answered.error, None);
    assert_eq!(
        decode_payload::<Value>(&response).expect("raw response payload"),
        expected
    );
}
