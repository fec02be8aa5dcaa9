use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{skip, top_level_entries, value_of, without_key};
use crate::wire::{Envelope, decode_envelope, decode_header, decode_payload, encode_envelope};

fn encode(value: &serde_json::Value) -> Vec<u8> {
    rmp_serde::to_vec_named(value).unwrap()
}

#[test]
fn skips_every_kind_of_value_to_its_exact_end() {
    let long = "x".repeat(300);
    let big_array: Vec<u32> = (0..20).collect();
    let big_map: serde_json::Map<String, serde_json::Value> =
        (0..20).map(|i| (format!("k{i}"), json!(i))).collect();
    let values = [
        json!(null),
        json!(true),
        json!(7),
        json!(-3),
        json!(200),
        json!(70000),
        json!(-70000),
        json!(u64::MAX),
        json!(1.5),
        json!("short"),
        json!("a string of forty characters, give or t"),
        json!(long),
        json!([1, "two", [3.0, null]]),
        json!(big_array),
        json!({"nested": {"deeper": [1, {"x": "y"}]}}),
        json!(big_map),
    ];
    for value in values {
        let mut bytes = encode(&value);
        let end = bytes.len();
        bytes.extend_from_slice(&[0xc0, 0xc0]);
        assert_eq!(skip(&bytes, 0), Some(end), "{value}");
    }
    for bin in [vec![1u8; 3], vec![2u8; 300], vec![3u8; 70_000]] {
        let mut bytes = Vec::new();
        rmp::encode::write_bin(&mut bytes, &bin).unwrap();
        assert_eq!(skip(&bytes, 0), Some(bytes.len()));
    }
    // float32, fixext and ext forms written by hand.
    for bytes in [
        vec![0xca, 0, 0, 0, 0],
        vec![0xd4, 1, 9],
        vec![0xd8; 18],
        vec![0xc7, 2, 5, 1, 2],
        vec![0xc8, 0, 1, 5, 1],
    ] {
        assert_eq!(skip(&bytes, 0), Some(bytes.len()), "{bytes:x?}");
    }
}

#[test]
fn refuses_truncated_reserved_and_lying_input() {
    let bytes = encode(&json!({"a": [1, 2, 3], "b": "text"}));
    for cut in 0..bytes.len() {
        assert_eq!(skip(&bytes[..cut], 0), None, "cut at {cut}");
    }
    assert_eq!(skip(&[0xc1], 0), None);
    // An array32 announcing four billion elements in a few bytes.
    assert_eq!(skip(&[0xdd, 0xff, 0xff, 0xff, 0xff, 0x01], 0), None);
    // A str32 whose length overflows.
    assert_eq!(skip(&[0xdb, 0xff, 0xff, 0xff, 0xff], 0), None);
}

#[test]
fn deep_nesting_does_not_recurse() {
    let mut bytes = vec![0x91; 100_000];
    bytes.push(0xc0);
    assert_eq!(skip(&bytes, 0), Some(bytes.len()));
}

#[test]
fn top_level_walk_needs_a_map_with_string_keys_and_ignores_what_follows() {
    assert!(top_level_entries(&encode(&json!([1, 2]))).is_none());
    assert!(
        top_level_entries(
            &rmp_serde::to_vec(&std::collections::BTreeMap::from([(1u8, 2u8)])).unwrap()
        )
        .is_none()
    );
    let frame = encode(&json!({"a": 1, "b": [2]}));
    let (first, entries) = top_level_entries(&frame).unwrap();
    assert_eq!(first, 1);
    assert_eq!(
        entries.iter().map(|e| e.key).collect::<Vec<_>>(),
        vec![&b"a"[..], &b"b"[..]]
    );
    // Bytes after the map, as serde's decode does: the same entries, and a copy without a
    // key is the map alone.
    let mut trailing = frame.clone();
    trailing.extend([0xc0, 0xc1]);
    assert_eq!(top_level_entries(&trailing).unwrap(), (first, entries));
    assert_eq!(
        without_key(&trailing, "a").unwrap(),
        encode(&json!({"b": [2]}))
    );
}

#[test]
fn value_of_finds_absent_and_refuses_duplicate_keys() {
    let frame = encode(&json!({"payload": {"n": 1}, "x": 2}));
    let range = value_of(&frame, "payload").unwrap().unwrap();
    assert_eq!(
        rmp_serde::from_slice::<serde_json::Value>(&frame[range]).unwrap(),
        json!({"n": 1})
    );
    assert_eq!(value_of(&frame, "missing"), Some(None));
    // {"payload": 1, "payload": 2}, written by hand.
    let mut duplicate = vec![0x82];
    for n in [1u8, 2] {
        rmp::encode::write_str(&mut duplicate, "payload").unwrap();
        duplicate.push(n);
    }
    assert_eq!(value_of(&duplicate, "payload"), None);
    assert_eq!(without_key(&duplicate, "payload"), None);
}

#[test]
fn without_key_keeps_every_other_entry_and_fixes_the_map_length() {
    let mut fields = serde_json::Map::new();
    for i in 0..20 {
        fields.insert(format!("k{i:02}"), json!(i));
    }
    fields.insert("payload".into(), json!({"big": "x".repeat(100)}));
    let frame = encode(&serde_json::Value::Object(fields.clone()));
    let stripped = without_key(&frame, "payload").unwrap();
    fields.remove("payload");
    assert_eq!(
        rmp_serde::from_slice::<serde_json::Value>(&stripped).unwrap(),
        serde_json::Value::Object(fields)
    );
    assert_eq!(without_key(&frame, "absent"), None);
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Body {
    text: String,
    n: u32,
}

#[test]
fn header_and_payload_decode_the_same_through_the_fast_path() {
    let body = Body {
        text: "héllo".into(),
        n: 7,
    };
    let frame = encode_envelope(&Envelope::request(
        42,
        "plugin.invoke_tool",
        "p",
        1000,
        &body,
    ))
    .unwrap();
    let header = decode_header(&frame).unwrap();
    assert_eq!(
        (
            header.request_id,
            &*header.method,
            &*header.plugin_id,
            header.timeout_ms
        ),
        (42, "plugin.invoke_tool", "p", 1000)
    );
    assert_eq!(decode_payload::<Body>(&frame).unwrap(), body);
    // A broken payload in last place is left to the payload's decoder: the header still reads
    // (so a request can be answered with its own id), the payload is refused.
    let mut broken = frame.to_vec();
    let range = value_of(&frame, "payload").unwrap().unwrap();
    assert_eq!(range.end, frame.len(), "the payload is written last");
    broken[range.start + 1..range.end].fill(0xc1);
    assert!(decode_payload::<Body>(&broken).is_err());
    assert!(decode_envelope::<Body>(&broken).is_err());
    assert_eq!(decode_header(&broken).unwrap().request_id, 42);
    // Anywhere else, the frame the walk refuses takes the full decode, which reports it.
    let moved = payload_moved_first(&frame, &broken);
    assert!(decode_payload::<Body>(&moved).is_err());
    assert!(decode_header(&moved).is_err());
}

/// `bytes` with the payload entry moved to the front of the map, the entries found in
/// `layout`, a well-formed frame of the same shape.
fn payload_moved_first(layout: &[u8], bytes: &[u8]) -> Vec<u8> {
    let (first, entries) = top_level_entries(layout).unwrap();
    let (last, rest) = entries.split_last().unwrap();
    assert_eq!(last.key, b"payload");
    let mut out = bytes[..first].to_vec();
    out.extend_from_slice(&bytes[last.entry.clone()]);
    for entry in rest {
        out.extend_from_slice(&bytes[entry.entry.clone()]);
    }
    out
}

#[test]
fn each_entry_visits_string_keys_in_order_and_refuses_the_rest() {
    let map = rmp_serde::to_vec_named(&serde_json::json!({"a": 1, "b": [true]})).unwrap();
    let mut seen = Vec::new();
    let walked = super::each_entry(&map, |key, at| {
        seen.push((key.to_vec(), map[at].to_vec()));
        Some(())
    });
    assert_eq!(walked, Some(()));
    assert_eq!(
        seen,
        vec![
            (b"a".to_vec(), vec![0x01]),
            (b"b".to_vec(), vec![0x91, 0xc3])
        ]
    );
    assert_eq!(
        super::each_entry(&map, |_, _| None),
        None,
        "a visit may stop the walk"
    );
    let mut trailing = map.clone();
    trailing.push(0xc0);
    assert_eq!(super::each_entry(&trailing, |_, _| Some(())), None);
    // {1: nil}: an integer key.
    assert_eq!(
        super::each_entry(&[0x81, 0x01, 0xc0], |_, _| Some(())),
        None
    );
    assert_eq!(
        super::each_entry(&[0x91, 0xc0], |_, _| Some(())),
        None,
        "not a map"
    );
}
