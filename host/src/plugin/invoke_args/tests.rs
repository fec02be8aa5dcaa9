use maitool_protocol::{JsonObject, ToolExecutionContext};
use serde_json::{Value, json};

use super::{ContextKeys, InvokeArgs};

/// A group chat with every context key set.
fn group_chat() -> ToolExecutionContext {
    ToolExecutionContext {
        stream_id: "st1".into(),
        group_id: "g1".into(),
        user_id: "u1".into(),
        platform: "qq".into(),
        ..ToolExecutionContext::default()
    }
}

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

/// What the runner receives: the arguments encoded as on the wire, decoded back.
fn on_the_wire(args: &InvokeArgs<'_>) -> JsonObject {
    let bytes = rmp_serde::to_vec_named(args).unwrap();
    rmp_serde::from_slice(&bytes).unwrap()
}

#[test]
fn context_keys_fill_only_missing_or_empty_arguments() {
    let model = object(json!({"stream_id": "", "user_id": "explicit", "n": 1}));
    let ctx = group_chat();
    let args = on_the_wire(&InvokeArgs::new(
        &model,
        &ctx,
        "because",
        false,
        ContextKeys::ALL,
    ));
    assert_eq!(
        Value::Object(args),
        json!({
            "stream_id": "st1",
            "chat_id": "st1",
            "user_id": "explicit",
            "group_id": "g1",
            "platform": "qq",
            "n": 1
        })
    );

    let action = on_the_wire(&InvokeArgs::new(
        &model,
        &ctx,
        "because",
        true,
        ContextKeys::ALL,
    ));
    assert_eq!(action["reasoning"], "because");
    assert_eq!(
        action["action_data"],
        json!({"stream_id": "", "user_id": "explicit", "n": 1})
    );
    assert_eq!(action["stream_id"], "st1");
}

#[test]
fn an_action_falls_back_to_the_context_reasoning_and_replaces_model_keys_of_those_names() {
    let model = object(json!({"reasoning": "model's", "action_data": 5, "x": true}));
    let ctx = ToolExecutionContext {
        reasoning: "from context".into(),
        ..ToolExecutionContext::default()
    };
    let action = on_the_wire(&InvokeArgs::new(&model, &ctx, "", true, ContextKeys::ALL));
    assert_eq!(action["reasoning"], "from context");
    assert_eq!(
        Value::Object(object(action["action_data"].clone())),
        Value::Object(model.clone())
    );
    assert_eq!(action.len(), 3, "{action:?}");
}

#[test]
fn anchor_message_overrides_group_and_user() {
    let model = JsonObject::new();
    let mut ctx = ToolExecutionContext {
        session_id: "s1".into(),
        group_id: "g1".into(),
        ..ToolExecutionContext::default()
    };
    ctx.metadata.insert(
        "anchor_message".into(),
        json!({"group_id": "g2", "user_id": "u2"}),
    );
    let args = on_the_wire(&InvokeArgs::new(&model, &ctx, "", false, ContextKeys::ALL));
    assert_eq!(args["group_id"], "g2");
    assert_eq!(args["user_id"], "u2");
    assert_eq!(args["stream_id"], "s1");
    assert_eq!(args["chat_id"], "s1");
    assert!(
        !args.contains_key("platform"),
        "empty values are not filled"
    );
}

#[test]
fn a_runner_that_reads_the_context_gets_only_the_declared_context_keys() {
    let schema = object(json!({
        "type": "object",
        "properties": {"text": {"type": "string"}, "user_id": {"type": "string"}}
    }));
    let keys = ContextKeys::declared_in(Some(&schema));
    let model = object(json!({"text": "hi"}));
    let ctx = group_chat();
    let args = on_the_wire(&InvokeArgs::new(&model, &ctx, "", false, keys));
    assert_eq!(Value::Object(args), json!({"text": "hi", "user_id": "u1"}));

    // No properties at all: nothing is added; no schema declares nothing either.
    let bare = ContextKeys::declared_in(Some(&object(json!({"type": "object"}))));
    assert_eq!(bare, ContextKeys::declared_in(None));
    let args = on_the_wire(&InvokeArgs::new(&model, &ctx, "", false, bare));
    assert_eq!(Value::Object(args), json!({"text": "hi"}));
    assert_ne!(bare, ContextKeys::ALL);
}
