use std::fmt::Debug;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::*;

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(object) => object,
        other => panic!("not an object: {other}"),
    }
}

fn to_msgpack<T: Serialize>(value: &T) -> Vec<u8> {
    rmp_serde::to_vec_named(value).expect("encode msgpack")
}

/// Encodes in both formats, decodes back, and checks nothing was lost either way.
fn assert_round_trips<T>(value: &T)
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let from_msgpack: T = rmp_serde::from_slice(&to_msgpack(value)).expect("decode msgpack");
    assert_eq!(&from_msgpack, value, "msgpack");
    let text = serde_json::to_string(value).expect("encode json");
    let from_json: T = serde_json::from_str(&text).expect("decode json");
    assert_eq!(&from_json, value, "json: {text}");
}

/// Decodes `json` both from JSON and from the same document re-encoded as MessagePack, and
/// checks both decode to the same value, which is returned.
fn decode_both<T>(json: Value) -> T
where
    T: DeserializeOwned + PartialEq + Debug,
{
    let from_json: T = serde_json::from_value(json.clone()).expect("decode json");
    let from_msgpack: T = rmp_serde::from_slice(&to_msgpack(&json)).expect("decode msgpack");
    assert_eq!(
        from_json, from_msgpack,
        "json and msgpack disagree on {json}"
    );
    from_json
}

fn icon() -> ToolIcon {
    ToolIcon {
        src: "https://example.com/icon.png".into(),
        mime_type: "image/png".into(),
        sizes: vec!["48x48".into(), "any".into()],
    }
}

fn annotation() -> ToolAnnotation {
    ToolAnnotation {
        audience: vec!["user".into(), "assistant".into()],
        priority: Some(0.75),
        title: "Weather".into(),
        read_only: Some(true),
        destructive: Some(false),
        idempotent: Some(true),
        open_world: None,
        metadata: object(json!({"origin": "test", "weights": [1, -2, 3.5]})),
    }
}

fn spec(provider_type: ProviderType) -> ToolSpec {
    ToolSpec {
        name: "get_weather".into(),
        description: "Current weather".into(),
        title: "Get weather".into(),
        parameters_schema: Some(object(json!({
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"]
        }))),
        output_schema: Some(object(json!({"type": "object"}))),
        provider_name: "weather_plugin".into(),
        provider_type,
        enabled: false,
        icons: vec![icon()],
        annotation: Some(annotation()),
        metadata: object(json!({"visibility": "deferred", "plugin_id": "weather_plugin"})),
    }
}

fn execution_context() -> ToolExecutionContext {
    ToolExecutionContext {
        session_id: "s1".into(),
        stream_id: "st1".into(),
        reasoning: "the user asked".into(),
        is_group_chat: Some(true),
        group_id: "g1".into(),
        user_id: "u1".into(),
        platform: "qq".into(),
        metadata: object(json!({"anchor_message": {"id": 9}})),
    }
}

/// One item of every kind, with every field set somewhere.
fn items_of_every_kind() -> Vec<ToolContentItem> {
    vec![
        ToolContentItem::text("hello"),
        ToolContentItem::image(vec![0x89, b'P', b'N', b'G', 0, 255], "image/png")
            .with_name("chart"),
        ToolContentItem::audio(vec![1, 2, 3], "audio/ogg"),
        ToolContentItem::resource_link("file:///tmp/a.txt", "a.txt")
            .with_description("a file")
            .with_mime_type("text/plain"),
        ToolContentItem::resource_text("memo://1", "remember this"),
        ToolContentItem::resource_blob("blob://1", vec![9; 300], "application/octet-stream"),
        ToolContentItem::binary(vec![0; 70_000], "application/zip"),
        ToolContentItem {
            content_type: ContentType::Unknown,
            annotation: Some(annotation()),
            metadata: object(json!({"context_key": "k", "source_url": "https://x"})),
            ..ToolContentItem::default()
        },
    ]
}

fn full_result() -> ToolExecutionResult {
    let mut result = ToolExecutionResult::success("get_weather", "Sunny")
        .with_structured(json!({"temp": 21.5, "ok": true, "tags": ["a"]}))
        .with_metadata("plugin_id", "weather_plugin")
        .with_metadata("pause_execution", false);
    result.content_items = items_of_every_kind();
    result.post_history_messages = vec![json!({"role": "user", "content": "more"})];
    result.error_message = "partial".into();
    result.stop_after_execution = true;
    result
}

// ---- round trips ----

#[test]
fn icon_and_annotation_round_trip() {
    assert_round_trips(&icon());
    assert_round_trips(&annotation());
    assert_round_trips(&ToolIcon::default());
    assert_round_trips(&ToolAnnotation::default());
}

#[test]
fn tool_spec_round_trips_with_every_provider_type() {
    for kind in [
        ProviderType::Plugin,
        ProviderType::Builtin,
        ProviderType::Mcp,
        ProviderType::Other("webhook".into()),
    ] {
        let spec = spec(kind.clone());
        assert_round_trips(&spec);
        let json = serde_json::to_value(&spec).unwrap();
        assert_eq!(json["provider_type"], json!(kind.as_str()));
    }
    assert_round_trips(&ToolSpec::new("bare", "  trimmed  "));
    assert_eq!(ToolSpec::new("bare", "  trimmed  ").description, "trimmed");
}

#[test]
fn provider_type_is_a_plain_string() {
    let decoded: ProviderType = decode_both(json!("mcp"));
    assert_eq!(decoded, ProviderType::Mcp);
    let decoded: ProviderType = decode_both(json!("webhook"));
    assert_eq!(decoded, ProviderType::Other("webhook".into()));
    assert_eq!(decoded.to_string(), "webhook");
    assert_eq!(to_msgpack(&ProviderType::Builtin), to_msgpack(&"builtin"));
}

#[test]
fn tool_spec_uses_the_seed_field_names() {
    let json = serde_json::to_value(spec(ProviderType::Plugin)).unwrap();
    let mut keys: Vec<&str> = json
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "annotation",
            "description",
            "enabled",
            "icons",
            "metadata",
            "name",
            "output_schema",
            "parameters_schema",
            "provider_name",
            "provider_type",
            "title"
        ]
    );
    // MessagePack carries the same names (a map, not a positional array).
    let from_msgpack: Value = rmp_serde::from_slice(&to_msgpack(&spec(ProviderType::Mcp))).unwrap();
    assert_eq!(from_msgpack["provider_type"], json!("mcp"));
    assert_eq!(from_msgpack["name"], json!("get_weather"));
}

#[test]
fn invocation_round_trips() {
    let invocation = ToolInvocation {
        tool_name: "get_weather".into(),
        arguments: object(json!({"city": "Paris", "days": 2, "delta": -1, "scale": 0.5})),
        call_id: "call_1".into(),
        session_id: "s1".into(),
        stream_id: "st1".into(),
        reasoning: "asked".into(),
        metadata: object(json!({"anchor_message": {"id": 1}, "debug": null})),
    };
    assert_round_trips(&invocation);
    assert_round_trips(&ToolInvocation::new("t", JsonObject::new()).with_call_id("c"));
}

#[test]
fn contexts_round_trip() {
    assert_round_trips(&execution_context());
    assert_round_trips(&execution_context().availability());
    for is_group_chat in [None, Some(false)] {
        let ctx = ToolExecutionContext {
            is_group_chat,
            ..execution_context()
        };
        assert_round_trips(&ctx);
        assert_round_trips(&ctx.availability());
    }
}

#[test]
fn execution_context_narrows_to_availability_context() {
    let ctx = execution_context();
    let expected = ToolAvailabilityContext {
        session_id: "s1".into(),
        stream_id: "st1".into(),
        is_group_chat: Some(true),
        group_id: "g1".into(),
        user_id: "u1".into(),
        platform: "qq".into(),
    };
    assert_eq!(ToolAvailabilityContext::from(&ctx), expected);
    assert_eq!(ctx.availability(), expected);
}

#[test]
fn content_items_of_every_kind_round_trip() {
    let items = items_of_every_kind();
    let kinds: Vec<ContentType> = items.iter().map(|item| item.content_type).collect();
    for kind in [
        ContentType::Text,
        ContentType::Image,
        ContentType::Audio,
        ContentType::ResourceLink,
        ContentType::Resource,
        ContentType::Binary,
        ContentType::Unknown,
    ] {
        assert!(kinds.contains(&kind), "{kind:?} not covered");
        let json = serde_json::to_value(kind).unwrap();
        assert_eq!(json, json!(kind.as_str()));
    }
    for item in &items {
        assert_round_trips(item);
    }
}

#[test]
fn execution_result_round_trips() {
    assert_round_trips(&full_result());
    assert_round_trips(&ToolExecutionResult::failure("t", "boom"));
    assert_round_trips(&ToolExecutionResult::default());
}

#[test]
fn result_constructors_and_pause_flag() {
    let ok = ToolExecutionResult::success("t", "done");
    assert!(ok.success);
    assert_eq!((ok.tool_name.as_str(), ok.content.as_str()), ("t", "done"));
    let failed = ToolExecutionResult::failure("t", "boom");
    assert!(!failed.success);
    assert_eq!(failed.error_message, "boom");
    assert!(!ok.pauses_execution());
    assert!(
        ok.clone()
            .with_metadata("pause_execution", true)
            .pauses_execution()
    );
    assert!(
        !ok.with_metadata("pause_execution", "yes")
            .pauses_execution()
    );
}

// ---- BinaryData on the wire ----

/// Reads a MessagePack map of string keys whose values are strings or `bin`, as the byte
/// layout stands, and returns the `data` entry's marker and bytes.
fn raw_data_entry(bytes: &[u8]) -> (rmp::Marker, Vec<u8>) {
    let mut rd = bytes;
    let entries = rmp::decode::read_map_len(&mut rd).unwrap();
    let mut found = None;
    for _ in 0..entries {
        let mut key = vec![0u8; 64];
        let key = rmp::decode::read_str(&mut rd, &mut key).unwrap().to_owned();
        let marker = rmp::decode::read_marker(&mut rd).unwrap();
        let len = match marker {
            rmp::Marker::Bin8 => u32::from(rmp::decode::RmpRead::read_data_u8(&mut rd).unwrap()),
            rmp::Marker::Bin16 => u32::from(rmp::decode::RmpRead::read_data_u16(&mut rd).unwrap()),
            rmp::Marker::Bin32 => rmp::decode::RmpRead::read_data_u32(&mut rd).unwrap(),
            rmp::Marker::FixStr(len) => u32::from(len),
            rmp::Marker::Str8 => u32::from(rmp::decode::RmpRead::read_data_u8(&mut rd).unwrap()),
            other => panic!("unexpected marker {other:?} for `{key}`"),
        } as usize;
        let (value, rest) = rd.split_at(len);
        rd = rest;
        if key == "data" {
            found = Some((marker, value.to_vec()));
        }
    }
    assert!(rd.is_empty(), "trailing bytes");
    found.expect("no `data` entry")
}

#[test]
fn binary_data_is_msgpack_bin_not_base64() {
    for (len, marker) in [
        (6, rmp::Marker::Bin8),
        (300, rmp::Marker::Bin16),
        (70_000, rmp::Marker::Bin32),
    ] {
        let payload: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        let item = ToolContentItem::binary(payload.clone(), "");
        let (found, bytes) = raw_data_entry(&to_msgpack(&item));
        assert_eq!(found, marker, "{len} bytes");
        assert_eq!(bytes, payload, "{len} bytes");
        // Standalone too: the first byte is the bin marker.
        let standalone = to_msgpack(&BinaryData(payload));
        assert_eq!(rmp::Marker::from_u8(standalone[0]), marker);
    }
}

#[test]
fn binary_data_is_base64_in_json() {
    let item = ToolContentItem::image(vec![0, 1, 2, 255], "image/png");
    let json = serde_json::to_value(&item).unwrap();
    assert_eq!(json["data"], json!("AAEC/w=="));
    assert_eq!(BinaryData(vec![0, 1, 2, 255]).to_base64(), "AAEC/w==");
    assert_eq!(
        format!("{:?}", BinaryData(vec![1; 5])),
        "BinaryData(5 bytes)"
    );
}

#[test]
fn binary_data_accepts_base64_and_data_urls_in_both_formats() {
    for data in [
        json!("AAEC/w=="),
        json!("data:image/png;base64,AAEC/w=="),
        json!("  AAEC/w==  "),
        json!([0, 1, 2, 255]),
    ] {
        let item: ToolContentItem =
            decode_both(json!({"content_type": "image", "data": data, "mime_type": "image/png"}));
        assert_eq!(item.data, BinaryData(vec![0, 1, 2, 255]), "{data}");
    }
    // A runner in another language may send base64 text where this side sends bin.
    let mut buf = Vec::new();
    rmp::encode::write_map_len(&mut buf, 2).unwrap();
    rmp::encode::write_str(&mut buf, "content_type").unwrap();
    rmp::encode::write_str(&mut buf, "audio").unwrap();
    rmp::encode::write_str(&mut buf, "data").unwrap();
    rmp::encode::write_str(&mut buf, "data:audio/ogg;base64,AQID").unwrap();
    let item: ToolContentItem = rmp_serde::from_slice(&buf).unwrap();
    assert_eq!(item.content_type, ContentType::Audio);
    assert_eq!(item.data.0, [1, 2, 3]);
    let empty: ToolContentItem = decode_both(json!({"content_type": "binary", "data": null}));
    assert!(empty.data.is_empty());
}

#[test]
fn invalid_base64_is_a_clear_error() {
    let err =
        serde_json::from_value::<ToolContentItem>(json!({"data": "not base64!"})).unwrap_err();
    assert!(err.to_string().contains("invalid base64"), "{err}");
    assert!(BinaryData::from_base64("data:image/png;base64,@@").is_err());
}

// ---- tolerant decoding ----

#[test]
fn unknown_content_type_decodes_as_unknown() {
    let item: ToolContentItem = decode_both(json!({"content_type": "hologram", "text": "x"}));
    assert_eq!(item.content_type, ContentType::Unknown);
    assert_eq!(item.text, "x");
    let json = serde_json::to_value(&item).unwrap();
    assert_eq!(json["content_type"], json!("unknown"));
}

#[test]
fn content_type_accepts_the_type_alias() {
    let item: ToolContentItem = decode_both(json!({"type": "resource_link", "uri": "u"}));
    assert_eq!(item.content_type, ContentType::ResourceLink);
    assert_eq!(item.uri, "u");
}

#[test]
fn tool_spec_without_enabled_is_enabled() {
    let spec: ToolSpec = decode_both(json!({"name": "t", "description": "d"}));
    assert!(spec.enabled);
    assert_eq!(spec.provider_type, ProviderType::Plugin);
    let spec: ToolSpec = decode_both(json!({"name": "t", "enabled": false}));
    assert!(!spec.enabled);
    assert!(ToolSpec::default().enabled);
}

#[test]
fn unknown_fields_are_ignored_everywhere() {
    let extra = json!({"added_in_v9": {"nested": [1, 2]}, "another": "x"});
    let with_extra = |value: Value| {
        let mut object = object(value);
        object.extend(object_of(&extra));
        Value::Object(object)
    };
    fn object_of(value: &Value) -> JsonObject {
        value.as_object().cloned().unwrap()
    }
    fn check<T>(value: T, with_extra: &dyn Fn(Value) -> Value)
    where
        T: Serialize + DeserializeOwned + PartialEq + Debug,
    {
        let json = with_extra(serde_json::to_value(&value).unwrap());
        assert_eq!(decode_both::<T>(json), value);
    }
    check(icon(), &with_extra);
    check(annotation(), &with_extra);
    check(spec(ProviderType::Mcp), &with_extra);
    check(
        ToolInvocation::new("t", object(json!({"a": 1}))).with_call_id("c"),
        &with_extra,
    );
    check(execution_context(), &with_extra);
    check(execution_context().availability(), &with_extra);
    check(ToolContentItem::text("hi"), &with_extra);
    check(ToolExecutionResult::success("t", "ok"), &with_extra);
}

#[test]
fn spec_converts_to_llm_definition() {
    let definition = ToolSpec::new("t", " described ")
        .with_parameters(object(json!({"type": "object"})))
        .to_llm_definition();
    assert_eq!(definition.name, "t");
    assert_eq!(definition.description, "described");
    assert_eq!(
        definition.parameters_schema,
        Some(object(json!({"type": "object"})))
    );
    assert_eq!(
        ToolSpec::new("t", "")
            .with_metadata("visibility", "hidden")
            .visibility(),
        Some("hidden")
    );
}

// ---- history rendering ----

#[test]
fn history_text_of_every_kind() {
    let link = |uri: &str, name: &str| ToolContentItem::resource_link(uri, name);
    let blob = |uri: &str| ToolContentItem::resource_blob(uri, vec![1], "application/pdf");
    let cases = [
        (ToolContentItem::text("  hello \n"), "hello"),
        (ToolContentItem::text("   "), ""),
        (
            ToolContentItem::image(vec![1], "image/png"),
            "[image image/png]",
        ),
        (ToolContentItem::image(vec![1], ""), "[image unknown]"),
        (
            ToolContentItem::audio(vec![1], "audio/wav"),
            "[audio audio/wav]",
        ),
        (ToolContentItem::audio(vec![1], ""), "[audio unknown]"),
        (link("file:///a", "a.txt"), "[resource link] a.txt"),
        (link("file:///a", ""), "[resource link] file:///a"),
        (link("", ""), "[resource link] resource link"),
        (
            ToolContentItem::resource_text("memo://1", "  note  "),
            "note",
        ),
        (
            blob("blob://1").with_name("report"),
            "[embedded resource] report",
        ),
        (blob("blob://1"), "[embedded resource] blob://1"),
        (blob(""), "[embedded resource] embedded resource"),
        (
            ToolContentItem::resource_text("memo://2", "  "),
            "[embedded resource] memo://2",
        ),
        (
            ToolContentItem::binary(vec![1], "application/zip"),
            "[binary application/zip]",
        ),
        (ToolContentItem::binary(vec![1], ""), "[binary unknown]"),
        (
            ToolContentItem {
                content_type: ContentType::Unknown,
                text: "ignored".into(),
                ..ToolContentItem::default()
            },
            "[unknown content]",
        ),
    ];
    for (item, expected) in cases {
        assert_eq!(item.history_text(), expected, "{item:?}");
    }
}

#[test]
fn history_content_prefers_content() {
    let result = ToolExecutionResult::success("t", "  the answer  ")
        .with_item(ToolContentItem::text("item"))
        .with_structured(json!({"a": 1}));
    assert_eq!(result.history_content(), "the answer");
}

#[test]
fn history_content_then_items_joined_by_newlines() {
    let mut result = ToolExecutionResult::success("t", "   ")
        .with_item(ToolContentItem::text("first"))
        .with_item(ToolContentItem::text("  "))
        .with_item(ToolContentItem::image(vec![1], "image/jpeg"))
        .with_item(ToolContentItem::resource_link("https://x", "x"))
        .with_structured(json!({"a": 1}));
    result.error_message = "err".into();
    assert_eq!(
        result.history_content(),
        "first\n[image image/jpeg]\n[resource link] x"
    );
}

#[test]
fn history_content_then_structured_content() {
    let mut result = ToolExecutionResult::success("t", "")
        .with_item(ToolContentItem::text(" "))
        .with_structured(json!({"b": [1, 2], "a": "x"}));
    result.error_message = "err".into();
    // Compact JSON: no spaces.
    assert_eq!(result.history_content(), r#"{"a":"x","b":[1,2]}"#);
    assert_eq!(
        result
            .clone()
            .with_structured(json!("  plain text "))
            .history_content(),
        "plain text"
    );
    assert_eq!(
        result.clone().with_structured(json!(42)).history_content(),
        "42"
    );
    assert_eq!(
        result
            .clone()
            .with_structured(json!(false))
            .history_content(),
        "false"
    );
    assert_eq!(result.with_structured(json!([])).history_content(), "[]");
}

#[test]
fn history_content_then_error_message() {
    let failed = ToolExecutionResult::failure("t", "  boom  ");
    assert_eq!(failed.history_content(), "boom");
    // Null or blank structured content is skipped, not rendered as "null".
    assert_eq!(
        failed
            .clone()
            .with_structured(Value::Null)
            .history_content(),
        "boom"
    );
    assert_eq!(
        failed.with_structured(json!("  ")).history_content(),
        "boom"
    );
    assert_eq!(ToolExecutionResult::default().history_content(), "");
}

/// An iterator that announces far more items than it yields, as a lying peer's array header
/// does. Not a mock: serde reads the announced count only as a size hint.
struct Announces<I>(I);

impl<I: Iterator<Item = u8>> Iterator for Announces<I> {
    type Item = u8;

    fn next(&mut self) -> Option<u8> {
        self.0.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (usize::MAX, Some(usize::MAX))
    }
}

/// Found by the `payloads` fuzz target: binary data sent as an array preallocated the count
/// its header announced, so 5 bytes (`0xdd` and a 32-bit count) made a peer allocate up to
/// 4 GiB, and a larger hint aborted on capacity overflow.
#[test]
fn binary_data_does_not_preallocate_an_announced_array_length() {
    use serde::Deserialize;
    use serde::de::value::{Error, SeqDeserializer};

    let lying = SeqDeserializer::<_, Error>::new(Announces([1u8, 2, 3].into_iter()));
    let data = BinaryData::deserialize(lying).unwrap();
    assert_eq!(data.0, [1, 2, 3]);
    assert!(data.0.capacity() <= 64 * 1024, "{}", data.0.capacity());

    let announced_4_gib = [0xdd, 0xff, 0xff, 0xff, 0xff, 0x01];
    // One byte arrives of the 4 Gi announced: the decode stops at the missing second.
    let err = rmp_serde::from_slice::<BinaryData>(&announced_4_gib).unwrap_err();
    assert!(
        err.to_string().contains("failed to fill whole buffer"),
        "{err}"
    );
}

/// The top-level keys of a MessagePack map, sorted.
fn msgpack_keys(bytes: &[u8]) -> Vec<String> {
    let value: Value = rmp_serde::from_slice(bytes).expect("decode msgpack");
    object(value).keys().cloned().collect()
}

#[test]
fn msgpack_leaves_out_empty_context_fields_and_json_keeps_them() {
    let ctx = ToolExecutionContext {
        session_id: "s1".into(),
        is_group_chat: Some(false),
        ..Default::default()
    };
    assert_eq!(
        msgpack_keys(&to_msgpack(&ctx)),
        ["is_group_chat", "session_id"]
    );
    let json = serde_json::to_value(&ctx).unwrap();
    assert_eq!(object(json).len(), 8, "JSON spells out every field");
    assert_round_trips(&ctx);
    assert_round_trips(&ToolExecutionContext::default());
    let full = ToolExecutionContext {
        session_id: "s".into(),
        stream_id: "st".into(),
        reasoning: "r".into(),
        is_group_chat: Some(true),
        group_id: "g".into(),
        user_id: "u".into(),
        platform: "qq".into(),
        metadata: object(json!({"anchor_message": {"id": 1}})),
    };
    assert_eq!(msgpack_keys(&to_msgpack(&full)).len(), 8);
    assert_round_trips(&full);
}

#[test]
fn msgpack_results_always_carry_name_and_success_and_nothing_empty() {
    let ok = ToolExecutionResult::success("echo", "hi");
    assert_eq!(
        msgpack_keys(&to_msgpack(&ok)),
        ["content", "success", "tool_name"]
    );
    let failed = ToolExecutionResult::failure("echo", "");
    assert_eq!(msgpack_keys(&to_msgpack(&failed)), ["success", "tool_name"]);
    let decoded: ToolExecutionResult = rmp_serde::from_slice(&to_msgpack(&failed)).unwrap();
    assert!(!decoded.success);
    let json = serde_json::to_value(&ok).unwrap();
    assert_eq!(object(json).len(), 9, "JSON spells out every field");
    assert_eq!(
        serde_json::to_value(&ok).unwrap()["stop_after_execution"],
        json!(false)
    );
    let rich = ToolExecutionResult::success("t", "")
        .with_structured(json!({"n": 1}))
        .with_item(ToolContentItem::text("x"))
        .with_metadata("pause_execution", true);
    assert_eq!(
        msgpack_keys(&to_msgpack(&rich)),
        [
            "content_items",
            "metadata",
            "structured_content",
            "success",
            "tool_name"
        ]
    );
    assert_round_trips(&ok);
    assert_round_trips(&rich);
    // Set, it travels; a failed result never stops the round, whatever it says.
    let stop = ToolExecutionResult::success("t", "done").with_stop_after_execution();
    assert_eq!(
        msgpack_keys(&to_msgpack(&stop)),
        ["content", "stop_after_execution", "success", "tool_name"]
    );
    assert_round_trips(&stop);
    assert!(stop.stops_after_execution());
    let mut failed_stop = stop.clone();
    failed_stop.success = false;
    assert!(!failed_stop.stops_after_execution());
}

#[test]
fn a_named_result_serializes_as_the_result_with_that_name() {
    fn named(result: &ToolExecutionResult) -> NamedResult<'_> {
        NamedResult {
            tool_name: "echo",
            result,
        }
    }
    for mut result in [full_result(), ToolExecutionResult::default()] {
        result.tool_name.clear();
        let with_name = ToolExecutionResult {
            tool_name: "echo".into(),
            ..result.clone()
        };
        assert_eq!(to_msgpack(&named(&result)), to_msgpack(&with_name));
        assert_eq!(
            serde_json::to_value(named(&result)).unwrap(),
            serde_json::to_value(&with_name).unwrap()
        );
        // A result that names itself keeps its own name.
        let own = ToolExecutionResult {
            tool_name: "other".into(),
            ..result
        };
        assert_eq!(to_msgpack(&named(&own)), to_msgpack(&own));
    }
}
