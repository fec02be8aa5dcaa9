use bytes::Bytes;
use serde::Serialize;
use serde_json::{Value, json};

use super::{InvokeView, walk};
use crate::model::{JsonObject, ToolExecutionContext};
use crate::wire::methods::InvokePayload;

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

fn bytes<T: Serialize>(value: &T) -> Bytes {
    Bytes::from(rmp_serde::to_vec_named(value).unwrap())
}

fn walked(payload: &Bytes) -> Option<InvokeView> {
    walk(payload, 0..payload.len())
}

#[test]
fn reads_what_serde_reads_and_leaves_the_arguments_encoded() {
    let payload = InvokePayload {
        component_name: "echo".into(),
        args: object(json!({"text": "hi", "stream_id": "st1"})),
        context: Some(ToolExecutionContext {
            session_id: "s1".into(),
            is_group_chat: Some(true),
            ..Default::default()
        }),
        call_id: "c1".into(),
    };
    let view = walked(&bytes(&payload)).expect("a plain payload walks");
    assert_eq!(view.component_name, "echo");
    assert_eq!(view.call_id, "c1");
    assert_eq!(view.context, payload.context);
    assert_eq!(view.args.decode::<JsonObject>().unwrap(), payload.args);
    // The arguments are the frame's own bytes, not a copy.
    let reencoded = rmp_serde::to_vec_named(&payload.args).unwrap();
    assert_eq!(view.args.as_bytes(), &reencoded[..]);
}

#[test]
fn the_component_name_is_a_slice_of_the_frame() {
    let payload = bytes(&json!({"component_name": "echo", "call_id": "c1"}));
    let view = walked(&payload).expect("walks");
    assert_eq!(view.component_name, "echo");
    let name = view.component_name.as_bytes().as_ptr();
    assert!(
        payload.as_ptr_range().contains(&name),
        "the name was copied"
    );
    // A name that is not UTF-8 is serde's to refuse.
    let mut bad = rmp_serde::to_vec_named(&json!({"component_name": "ab"})).unwrap();
    let last = bad.len() - 1;
    bad[last] = 0xff;
    assert!(walked(&Bytes::from(bad)).is_none());
}

#[test]
fn missing_and_nil_fields_take_their_defaults() {
    for payload in [
        json!({}),
        json!({"args": null, "context": null}),
        json!(null),
    ] {
        let view = walked(&bytes(&payload)).expect("walks");
        assert_eq!(view.component_name, "");
        assert!(view.context.is_none());
        assert!(view.args.decode::<JsonObject>().unwrap().is_empty());
    }
    let extra = walked(&bytes(
        &json!({"component_name": "t", "future_key": [1, 2]}),
    ))
    .unwrap();
    assert_eq!(
        extra.component_name, "t",
        "unknown keys are skipped, as serde skips them"
    );
}

#[test]
fn anything_unusual_is_left_to_serde() {
    let cases = [
        json!({"component_name": 5}),
        json!({"args": [1, 2]}),
        json!({"args": "x"}),
        json!({"context": {"is_group_chat": "yes"}}),
        json!([1]),
    ];
    for case in cases {
        assert!(walked(&bytes(&case)).is_none(), "{case} should fall back");
    }
    let mut twice = Vec::new();
    rmp::encode::write_map_len(&mut twice, 2).unwrap();
    for name in ["a", "b"] {
        rmp::encode::write_str(&mut twice, "component_name").unwrap();
        rmp::encode::write_str(&mut twice, name).unwrap();
    }
    assert!(walked(&Bytes::from(twice)).is_none(), "a key twice");
    let mut trailing = rmp_serde::to_vec_named(&json!({"component_name": "t"})).unwrap();
    trailing.push(0xc0);
    assert!(walked(&Bytes::from(trailing)).is_none());
}

#[test]
fn a_fully_decoded_payload_gives_the_same_view() {
    let payload = InvokePayload {
        component_name: "echo".into(),
        args: object(json!({"text": "hi"})),
        context: None,
        call_id: String::new(),
    };
    let view = InvokeView::from_payload(payload.clone()).unwrap();
    assert_eq!(view.component_name, "echo");
    assert_eq!(view.args.decode::<JsonObject>().unwrap(), payload.args);
}

#[test]
fn contexts_are_walked_or_decoded_by_serde_to_the_same_value() {
    let full = ToolExecutionContext {
        session_id: "s1".into(),
        stream_id: "st1".into(),
        reasoning: "because".into(),
        is_group_chat: Some(false),
        group_id: "g".into(),
        user_id: "u".into(),
        platform: "qq".into(),
        metadata: JsonObject::new(),
    };
    let with_metadata = ToolExecutionContext {
        metadata: object(json!({"k": [1, 2]})),
        ..full.clone()
    };
    for context in [
        Some(full),
        Some(with_metadata),
        Some(Default::default()),
        None,
    ] {
        let encoded = rmp_serde::to_vec_named(&context).unwrap();
        let context_walked = super::context_walk(&encoded);
        let decoded: Option<ToolExecutionContext> = rmp_serde::from_slice(&encoded).unwrap();
        assert_eq!(decoded, context);
        match &context {
            Some(context) if !context.metadata.is_empty() => assert_eq!(context_walked, None),
            _ => assert_eq!(context_walked, Some(context.clone())),
        }
        let payload = InvokePayload {
            component_name: "echo".into(),
            args: JsonObject::new(),
            context: context.clone(),
            call_id: String::new(),
        };
        let view = walked(&bytes(&payload)).expect("the payload walks");
        assert_eq!(view.context, context);
    }
    // Keys twice, other types and unknown keys are for serde to judge.
    for odd in [
        json!({"session_id": 5}),
        json!({"is_group_chat": "yes"}),
        json!({"unknown": "x"}),
        json!(["s1"]),
    ] {
        assert_eq!(
            super::context_walk(&rmp_serde::to_vec_named(&odd).unwrap()),
            None,
            "{odd}"
        );
    }
    let mut twice = vec![0x82];
    for value in ["a", "b"] {
        rmp::encode::write_str(&mut twice, "group_id").unwrap();
        rmp::encode::write_str(&mut twice, value).unwrap();
    }
    assert_eq!(super::context_walk(&twice), None);
    assert!(rmp_serde::from_slice::<ToolExecutionContext>(&twice).is_err());
}
