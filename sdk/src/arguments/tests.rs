use maitool_protocol::JsonObject;
use maitool_protocol::wire::EncodedValue;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::ArgumentDecoder;
use crate::schema::schema_for;

#[derive(Debug, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
struct Strict {
    text: String,
}

#[derive(Debug, Deserialize, JsonSchema, PartialEq)]
struct WantsStream {
    text: String,
    stream_id: String,
}

#[derive(Debug, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "snake_case")]
enum Op {
    Add,
    Multiply,
}

#[derive(Debug, Deserialize, JsonSchema, PartialEq)]
struct Calc {
    a: f64,
    b: i64,
    op: Op,
    note: Option<String>,
}

/// Arguments as the host sends them: the model's, plus the context keys.
fn sent(model: Value) -> EncodedValue {
    let mut args = match model {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    };
    args.insert("stream_id".into(), "st1".into());
    args.insert("chat_id".into(), "st1".into());
    EncodedValue::encode(&args).unwrap()
}

fn decoder<A: JsonSchema>(name: &str) -> ArgumentDecoder {
    ArgumentDecoder::new(name, &schema_for::<A>())
}

#[test]
fn undeclared_context_keys_never_reach_a_strict_type() {
    let decoded: Strict = decoder::<Strict>("echo")
        .decode(&sent(json!({"text": "hi"})))
        .unwrap();
    assert_eq!(decoded, Strict { text: "hi".into() });
}

#[test]
fn a_declared_context_key_is_kept() {
    let decoded: WantsStream = decoder::<WantsStream>("echo")
        .decode(&sent(json!({"text": "hi"})))
        .unwrap();
    assert_eq!(decoded.stream_id, "st1");
}

#[test]
fn json_shapes_decode_as_they_did_through_json_values() {
    // Integers into floats, strings into unit variants, a missing option.
    let decoded: Calc = decoder::<Calc>("calculate")
        .decode(&sent(json!({"a": 6, "b": 7, "op": "multiply"})))
        .unwrap();
    assert_eq!(
        decoded,
        Calc {
            a: 6.0,
            b: 7,
            op: Op::Multiply,
            note: None
        }
    );
    let dynamic: JsonObject = decoder::<JsonObject>("any")
        .decode(&sent(json!({"x": [1, {"y": null}]})))
        .unwrap();
    assert_eq!(Value::Object(dynamic), json!({"x": [1, {"y": null}]}));
    let _ = Op::Add;
}

#[test]
fn arguments_that_do_not_fit_name_the_tool_and_the_problem() {
    let err = decoder::<Calc>("calculate")
        .decode::<Calc>(&sent(json!({"a": "x", "b": 1, "op": "add"})))
        .unwrap_err();
    let message = err.message();
    assert!(
        message.starts_with("invalid arguments for tool calculate: "),
        "{message}"
    );
    assert!(
        message.contains(r#"invalid type: string "x", expected f64"#),
        "{message}"
    );
    let err = decoder::<Calc>("calculate")
        .decode::<Calc>(&sent(json!({"a": 1, "b": 1, "op": "power"})))
        .unwrap_err();
    assert!(err.message().contains("power"), "{}", err.message());
}
