use serde::Serialize;

use super::{PayloadAt, copied_text, shared_text, walk};
use crate::wire::{
    ByteString, Envelope, EnvelopeHeader, ErrorBody, ErrorCode, MessageType, WireError,
    decode_header, decode_payload, encode_envelope,
};

/// The walk with header strings copied out of the frame.
fn walked(frame: &[u8]) -> Option<(EnvelopeHeader, PayloadAt)> {
    walk(frame, |range| copied_text(frame, range))
}

fn request_frame() -> Vec<u8> {
    let mut args = crate::JsonObject::new();
    args.insert("text".into(), "hello".into());
    encode_envelope(&Envelope::request(
        41,
        "plugin.invoke_tool",
        "demo",
        60_000,
        args,
    ))
    .unwrap()
    .to_vec()
}

/// A frame from an arbitrary serializable map, for the shapes no encoder of ours produces.
fn frame_of<T: Serialize>(value: &T) -> Vec<u8> {
    rmp_serde::to_vec_named(value).unwrap()
}

#[test]
fn a_request_is_read_in_one_walk_with_its_payload_located() {
    let frame = request_frame();
    let (header, at) = walked(&frame).expect("our own frames take the walk");
    assert_eq!(header.request_id, 41);
    assert_eq!(header.message_type, MessageType::Request);
    assert_eq!(header.method, "plugin.invoke_tool");
    assert_eq!(header.plugin_id, "demo");
    assert_eq!(header.timeout_ms, 60_000);
    assert_eq!(header.protocol_version, "1.0.0");
    assert_eq!(header.error, None);
    let PayloadAt::Range(range) = at else {
        panic!("payload not located: {at:?}")
    };
    let payload: crate::JsonObject = rmp_serde::from_slice(&frame[range]).unwrap();
    assert_eq!(payload["text"], "hello");
}

#[test]
fn header_strings_share_the_frame_they_were_read_from() {
    let frame = bytes::Bytes::from(request_frame());
    let (header, _) = walk(&frame, |range| shared_text(&frame, range)).expect("walked");
    let inside = |text: &ByteString| frame.as_ptr_range().contains(&text.as_bytes().as_ptr());
    assert_eq!(header.method, "plugin.invoke_tool");
    assert!(inside(&header.method), "the method was copied");
    assert_eq!(header.plugin_id, "demo");
    assert!(inside(&header.plugin_id), "the plugin id was copied");
    // The usual protocol version is a static string, not a slice: it keeps nothing alive.
    assert_eq!(header.protocol_version, "1.0.0");
    assert!(!inside(&header.protocol_version));
    let (copied, _) = walked(&frame).expect("walked");
    assert_eq!(copied, header);
    assert!(!inside(&copied.method), "a copy shares nothing");
}

#[test]
fn an_error_response_carries_its_error_body() {
    let request = decode_header(&request_frame()).unwrap();
    let body = ErrorBody::new(ErrorCode::ToolNotFound, "no such tool");
    let frame = encode_envelope(&Envelope::error_response_to(&request, body.clone())).unwrap();
    let (header, _) = walked(&frame).expect("walked");
    assert_eq!(header.message_type, MessageType::Response);
    assert_eq!(header.error, Some(body));
}

#[test]
fn missing_optional_fields_take_maibots_defaults() {
    #[derive(Serialize)]
    struct Minimal {
        request_id: u64,
        message_type: &'static str,
    }
    let frame = frame_of(&Minimal {
        request_id: 3,
        message_type: "broadcast",
    });
    let (header, at) = walked(&frame).expect("walked");
    assert_eq!(at, PayloadAt::Absent);
    assert_eq!(
        header,
        EnvelopeHeader {
            protocol_version: "1.0.0".into(),
            request_id: 3,
            message_type: MessageType::Broadcast,
            method: ByteString::new(),
            plugin_id: ByteString::new(),
            timestamp_ms: 0,
            timeout_ms: 30_000,
            error: None,
        }
    );
    // The absent payload decodes as an empty map, as through the serde path.
    let payload: crate::JsonObject = decode_payload(&frame).unwrap();
    assert!(payload.is_empty());
}

#[test]
fn unusual_frames_are_left_to_serde_which_still_decodes_them() {
    #[derive(Serialize)]
    struct WithExtra {
        request_id: u64,
        message_type: &'static str,
        extra: Vec<u32>,
    }
    #[derive(Serialize)]
    struct SignedId {
        request_id: i8,
        message_type: &'static str,
    }
    let with_extra = frame_of(&WithExtra {
        request_id: 5,
        message_type: "request",
        extra: vec![1, 2],
    });
    // rmp encodes a non-negative i8 as a positive fixint; force the signed marker.
    let mut signed = frame_of(&SignedId {
        request_id: 5,
        message_type: "request",
    });
    let at = signed.iter().position(|&b| b == 5).unwrap();
    signed.splice(at..=at, [0xd0, 5]);
    let mut trailing = frame_of(&WithExtra {
        request_id: 5,
        message_type: "request",
        extra: vec![],
    });
    trailing.push(0xc0);

    for frame in [&with_extra, &signed, &trailing] {
        assert!(walked(frame).is_none(), "{frame:x?}");
    }
    assert_eq!(decode_header(&with_extra).unwrap().request_id, 5);
    assert_eq!(decode_header(&signed).unwrap().request_id, 5);
    assert_eq!(decode_header(&trailing).unwrap().request_id, 5);
}

#[test]
fn a_payload_in_last_place_is_located_without_being_walked() {
    let frame = request_frame();
    let (_, at) = walked(&frame).unwrap();
    let PayloadAt::Range(range) = at else {
        panic!("payload not located: {at:?}")
    };
    assert_eq!(range.end, frame.len());

    // Bytes after the envelope then fall in the payload's range; its decoder reads one value
    // and ignores them, as serde ignores them after the whole frame.
    let mut trailing = frame.clone();
    trailing.push(0xc0);
    let (header, at) = walked(&trailing).expect("walked");
    assert_eq!(header.request_id, 41);
    assert_eq!(at, PayloadAt::Range(range.start..trailing.len()));
    let payload: crate::JsonObject = decode_payload(&trailing).unwrap();
    assert_eq!(payload["text"], "hello");

    // A truncated payload still gives the header, so the request can be answered; the
    // payload's decoder refuses it.
    let truncated = &frame[..frame.len() - 2];
    let (header, _) = walked(truncated).expect("walked");
    assert_eq!(header.method, "plugin.invoke_tool");
    assert!(decode_payload::<crate::JsonObject>(truncated).is_err());
    assert!(crate::wire::decode_envelope::<crate::JsonObject>(truncated).is_err());
}

#[test]
fn a_duplicate_key_is_left_to_serde_which_rejects_it() {
    let mut frame = request_frame();
    frame[0] += 1;
    rmp::encode::write_str(&mut frame, "method").unwrap();
    rmp::encode::write_str(&mut frame, "other").unwrap();
    assert!(walked(&frame).is_none());
    let err = decode_header(&frame).unwrap_err();
    assert!(err.to_string().contains("duplicate field"), "{err}");
}

#[test]
fn an_unknown_message_type_is_reported_by_the_serde_path() {
    #[derive(Serialize)]
    struct Odd {
        request_id: u64,
        message_type: &'static str,
    }
    let frame = frame_of(&Odd {
        request_id: 9,
        message_type: "gossip",
    });
    assert!(walked(&frame).is_none());
    match decode_header(&frame) {
        Err(WireError::UnknownMessageType {
            request_id,
            message_type,
        }) => {
            assert_eq!(request_id, 9);
            assert_eq!(message_type, "gossip");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn invalid_utf8_in_a_header_string_is_left_to_serde() {
    let mut frame = request_frame();
    let at = frame
        .windows(4)
        .position(|w| w == b"demo")
        .expect("plugin id in the frame");
    frame[at] = 0xff;
    assert!(walked(&frame).is_none());
    assert!(decode_header(&frame).is_err());
}
