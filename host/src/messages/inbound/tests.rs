use serde_json::json;

use super::*;

fn dict(value: Value) -> JsonObject {
    value.as_object().unwrap().clone()
}

#[test]
fn a_maibot_message_dict_reads_as_a_chat_message() {
    let png = [0x89u8, b'P', b'N', b'G', 0, 1, 2];
    let message = chat_message(&dict(json!({
        "message_id": "ext-1",
        "timestamp": "1765000000.5",
        "platform": "qq",
        "message_info": {
            "user_info": {"user_id": "u1", "user_nickname": "Alice", "user_cardname": null},
            "group_info": {"group_id": "42", "group_name": "Games"},
        },
        "raw_message": [
            {"type": "reply", "data": "m-0"},
            {"type": "at", "data": {"target_user_id": "bot"}},
            {"type": "text", "data": "look "},
            {"type": "image", "data": "a cat",
             "binary_data_base64": base64::engine::general_purpose::STANDARD.encode(png)},
            {"type": "text", "data": "here"},
        ],
    })))
    .unwrap();
    assert_eq!(message.message_id, "ext-1");
    assert_eq!(message.stream_id, "qq:group:42");
    assert_eq!(
        (message.user_id.as_str(), message.user_name.as_str()),
        ("u1", "Alice")
    );
    assert_eq!(
        (message.group_id.as_str(), message.group_name.as_str()),
        ("42", "Games")
    );
    assert_eq!(message.text, "look here");
    assert_eq!(message.mentions, ["bot"]);
    assert_eq!(message.reply_to.as_deref(), Some("m-0"));
    assert_eq!(message.time, Some(1765000000.5));
    assert_eq!(message.images.len(), 1);
    assert_eq!(message.images[0].mime_type, "image/png");
    assert_eq!(message.images[0].description, "a cat");
    // A session id names the stream; processed_plain_text wins over the segments.
    let message = chat_message(&dict(json!({
        "platform": "tg", "session_id": "s-9", "processed_plain_text": "plain",
        "message_info": {"user_info": {"user_id": 7}},
        "raw_message": [{"type": "text", "data": "segments"}],
    })))
    .unwrap();
    assert_eq!(
        (message.stream_id.as_str(), message.text.as_str()),
        ("s-9", "plain")
    );
    assert_eq!(message.user_id, "7");
}

#[test]
fn a_malformed_dict_says_what_is_missing() {
    let refusal = |value: Value| chat_message(&dict(value)).unwrap_err();
    assert_eq!(refusal(json!({})), "it has no `platform`");
    assert_eq!(
        refusal(json!({"platform": "qq"})),
        "it has no `message_info.user_info.user_id`"
    );
    assert_eq!(
        refusal(
            json!({"platform": "qq", "message_info": {"user_info": {"user_id": "u"}}, "raw_message": "hi"})
        ),
        "`raw_message` must be a list of segments, not a string"
    );
    assert!(
        refusal(
            json!({"platform": "qq", "message_info": {"user_info": {"user_id": "u"}},
            "raw_message": [{"type": "image", "binary_data_base64": "%%"}]})
        )
        .starts_with("`raw_message[0].binary_data_base64` is not base64")
    );
}
