use serde_json::json;

use super::*;

fn answer(success: bool, result: Option<Value>) -> InvokeResultPayload {
    InvokeResultPayload {
        success,
        result,
        tool_result: None,
    }
}

#[test]
fn every_maibot_command_return_form_reads_as_its_reply() {
    // (success, text, intercept): the usual triple.
    let reply = CommandReply::from_answer(&answer(true, Some(json!([true, "hi", false]))));
    assert_eq!(
        reply,
        CommandReply {
            success: true,
            text: Some("hi".into()),
            intercept: Some(false)
        }
    );
    // A falsy intercept value as Python reads it.
    let reply = CommandReply::from_answer(&answer(true, Some(json!([true, null, 0]))));
    assert_eq!(reply.intercept, Some(false));
    assert_eq!(reply.text, None);
    let reply = CommandReply::from_answer(&answer(true, Some(json!([true, "x", 2]))));
    assert_eq!(reply.intercept, Some(true));
    // (False, text, ...): a failure, where MaiBot would have counted a success.
    let reply = CommandReply::from_answer(&answer(true, Some(json!([false, "no city", true]))));
    assert!(!reply.success);
    assert_eq!(reply.text.as_deref(), Some("no city"));
    // A pair leaves the intercept to the declaration.
    let reply = CommandReply::from_answer(&answer(true, Some(json!([true, "ok"]))));
    assert_eq!(reply.intercept, None);
    // A raised handler: success false, its text the exception.
    let reply = CommandReply::from_answer(&answer(false, Some(json!("boom"))));
    assert!(!reply.success);
    assert_eq!(reply.text.as_deref(), Some("boom"));
    // None, and a value of another kind.
    assert_eq!(CommandReply::from_answer(&answer(true, None)).text, None);
    assert_eq!(
        CommandReply::from_answer(&answer(true, Some(json!({"a": 1})))).text,
        Some(r#"{"a":1}"#.into())
    );
}

#[test]
fn a_reply_survives_its_own_answer_form() {
    for reply in [
        CommandReply {
            success: true,
            text: Some("t".into()),
            intercept: Some(true),
        },
        CommandReply {
            success: false,
            text: None,
            intercept: None,
        },
    ] {
        assert_eq!(
            CommandReply::from_answer(&reply.clone().into_answer()),
            reply
        );
    }
}

#[test]
fn event_names_round_trip_through_messagepack() {
    for event in EventType::MAIBOT
        .iter()
        .cloned()
        .chain([EventType::Other("engine.tick".into())])
    {
        let bytes = rmp_serde::to_vec_named(&event).unwrap();
        let back: EventType = rmp_serde::from_slice(&bytes).unwrap();
        assert_eq!(back, event);
        assert_eq!(EventType::from(event.as_str()), event);
    }
    assert_eq!(EventType::from(" on_message "), EventType::OnMessage);
}

#[test]
fn event_args_keep_their_extra_keys_beside_the_message() {
    let mut args = EventArgs::new(
        EventType::PostSend,
        Some(json!({"message_id": "m1"}).as_object().unwrap().clone()),
    );
    args.extra.insert("stream_id".into(), json!("st1"));
    let bytes = rmp_serde::to_vec_named(&args.clone().into_object()).unwrap();
    let back: EventArgs = rmp_serde::from_slice(&bytes).unwrap();
    assert_eq!(back, args);
    assert_eq!(back.extra["stream_id"], "st1");
}

#[test]
fn an_event_answer_reads_maibots_flattened_shape() {
    let bytes = rmp_serde::to_vec_named(&json!({
        "success": true,
        "continue_processing": false,
        "modified_message": {"processed_plain_text": "changed"},
        "custom_result": null,
    }))
    .unwrap();
    let answer: EventResultPayload = rmp_serde::from_slice(&bytes).unwrap();
    assert!(!answer.continue_processing);
    assert_eq!(
        answer.modified_message.unwrap()["processed_plain_text"],
        "changed"
    );
    assert_eq!(answer.custom_result, None);
}
