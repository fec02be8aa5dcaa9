use serde::Deserialize;
use serde_json::{Value, json};

use super::EncodedValue;
use crate::wire::{MAX_NESTING_DEPTH, WireError};

#[derive(Debug, Deserialize, PartialEq)]
struct Echo {
    text: String,
    #[serde(default)]
    times: u32,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct Strict {
    text: String,
}

fn encoded(value: Value) -> EncodedValue {
    EncodedValue::encode(&value).unwrap()
}

#[test]
fn decodes_straight_into_the_type_asked_for() {
    let args = encoded(json!({"text": "hi", "times": 3, "stream_id": "st1"}));
    assert_eq!(
        args.decode::<Echo>().unwrap(),
        Echo {
            text: "hi".into(),
            times: 3
        }
    );
    let as_map: serde_json::Map<String, Value> = args.decode().unwrap();
    assert_eq!(as_map.len(), 3);
}

#[test]
fn dropped_keys_are_left_out_before_decoding() {
    let args = encoded(json!({"stream_id": "st1", "text": "hi", "chat_id": "c"}));
    let is_context = |key: &str| key == "stream_id" || key == "chat_id";
    assert!(
        args.decode::<Strict>().is_err(),
        "the strict type refuses extra keys"
    );
    assert_eq!(
        args.decode_without::<Strict>(is_context).unwrap(),
        Strict { text: "hi".into() }
    );
    let kept: serde_json::Map<String, Value> = args.decode_without(is_context).unwrap();
    assert_eq!(Value::Object(kept), json!({"text": "hi"}));
    // Nothing to drop: decoded in place, same answer.
    let plain = encoded(json!({"text": "hi"}));
    assert_eq!(
        plain.decode_without::<Strict>(is_context).unwrap(),
        Strict { text: "hi".into() }
    );
}

#[test]
fn dropping_keys_rewrites_the_map_header_to_the_kept_count() {
    // 17 entries (a `map 16` header) lose 2 and become a fixmap of 15; 70,000 keep their
    // `map 32` header; every kept entry survives, in order.
    for (total, dropped) in [(17, 2), (20, 4), (70_000, 3)] {
        let mut map = serde_json::Map::new();
        for i in 0..total {
            let key = if i < dropped {
                format!("drop{i}")
            } else {
                format!("k{i:05}")
            };
            map.insert(key, json!(i));
        }
        let args = encoded(Value::Object(map.clone()));
        let kept: serde_json::Map<String, Value> =
            args.decode_without(|key| key.starts_with("drop")).unwrap();
        map.retain(|key, _| !key.starts_with("drop"));
        assert_eq!(kept, map, "{total} entries, {dropped} dropped");
    }
    // Dropping every entry leaves an empty map.
    let all: serde_json::Map<String, Value> = encoded(json!({"a": 1, "b": [2]}))
        .decode_without(|_| true)
        .unwrap();
    assert!(all.is_empty());
}

#[test]
fn a_value_that_is_not_a_map_is_reported_by_serde() {
    let err = encoded(json!([1, 2]))
        .decode_without::<Echo>(|_| true)
        .unwrap_err();
    assert!(matches!(err, WireError::Decode(_)), "{err}");
    let err = encoded(json!({"text": 5})).decode::<Echo>().unwrap_err();
    assert!(err.to_string().contains("invalid type"), "{err}");
}

#[test]
fn str_entry_reads_one_string_without_decoding_the_rest() {
    let args = encoded(json!({"text": "hi", "n": 1, "chat_id": "c1", "deep": {"chat_id": "x"}}));
    assert_eq!(args.str_entry("chat_id"), Some("c1"));
    assert_eq!(args.str_entry("n"), None, "not a string");
    assert_eq!(args.str_entry("missing"), None);
    assert_eq!(encoded(json!("chat_id")).str_entry("chat_id"), None);
    assert_eq!(
        EncodedValue::from_bytes(vec![0x81, 0xa1]).str_entry("a"),
        None
    );
}

#[test]
fn the_nesting_limit_still_holds() {
    let mut deep = json!(1);
    for _ in 0..MAX_NESTING_DEPTH + 5 {
        deep = json!([deep]);
    }
    let err = encoded(json!({ "text": "x", "deep": deep }))
        .decode::<Value>()
        .unwrap_err();
    assert!(err.to_string().contains("depth"), "{err}");
}

#[test]
fn the_default_is_an_empty_map() {
    let empty: serde_json::Map<String, Value> = EncodedValue::default().decode().unwrap();
    assert!(empty.is_empty());
}
