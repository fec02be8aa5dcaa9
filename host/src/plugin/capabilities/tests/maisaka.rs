//! `maisaka.context.append` into the stream's history, and `chat.open_session` over the
//! store's streams.

use serde_json::json;

use super::{PLUGIN, call, seed_chats, service};

#[tokio::test]
async fn a_context_note_lands_at_the_end_of_the_streams_history() {
    let (service, store) = service(&["maisaka.*", "message.*"]).await;
    seed_chats(&store).await;
    let appended = call(
        &service,
        "maisaka.context.append",
        json!({"stream_id": "g1", "segments": [{"type": "text", "content": "card sent: Alice 7/10"}],
               "visible_text": "sent Alice's card", "source_kind": "", "message_id": "",
               "replyable": false, "user_info": null}),
    )
    .await;
    assert_eq!(appended["success"], true, "{appended}");
    assert_eq!(appended["index"], 3);
    assert_eq!(appended["visible_text"], "sent Alice's card");
    assert_eq!(appended["source_kind"], format!("plugin:{PLUGIN}"));
    assert_eq!(appended["replyable"], false);
    // The model reads it where it reads the stream: the newest history.
    let newest = store.recent_messages("g1", 1, &[]).await.unwrap();
    assert_eq!(newest[0].text, "card sent: Alice 7/10");
    assert_eq!(newest[0].sender_name, format!("plugin:{PLUGIN}"));
    assert!(!newest[0].is_bot);

    // A replyable note is its real author's message, under its id.
    let replyable = call(
        &service,
        "maisaka.context.append",
        json!({"chat_id": "g1", "segments": [{"type": "text", "data": "see video"}],
               "replyable": true, "message_id": "ext-1",
               "user_info": {"user_id": "u-dan", "user_nickname": "Dan"}}),
    )
    .await;
    assert_eq!(replyable["success"], true, "{replyable}");
    let message = call(
        &service,
        "message.get_by_id",
        json!({"message_id": "ext-1"}),
    )
    .await;
    assert_eq!(
        message["message"]["message_info"]["user_info"]["user_nickname"],
        "Dan"
    );

    for (args, wanted) in [
        (
            json!({"segments": [{"type": "text", "content": "x"}]}),
            "`stream_id`",
        ),
        (
            json!({"stream_id": "g1", "segments": []}),
            "no text or image segment",
        ),
        (json!({"stream_id": "g1"}), "`segments` is required"),
        (
            json!({"stream_id": "g1", "segments": [{"type": "text", "content": "x"}], "replyable": "yes"}),
            "`replyable` must be true or false",
        ),
        (
            json!({"stream_id": "g1", "segments": [{"type": "text", "content": "x"}], "replyable": true}),
            "needs `message_id` and `user_info.user_id`",
        ),
        (
            json!({"stream_id": "g1", "segments": [{"type": "text", "content": "x"}],
                   "replyable": true, "message_id": "ext-1", "user_info": {"user_id": "u"}}),
            "message id ext-1 already exists",
        ),
    ] {
        let answer = call(&service, "maisaka.context.append", args).await;
        assert_eq!(answer["success"], false, "{answer}");
        let error = answer["error"].as_str().unwrap();
        assert!(error.contains(wanted), "{error}");
    }
}

#[tokio::test]
async fn open_session_finds_or_creates_the_stream_of_a_group_or_user() {
    let (service, store) = service(&["chat.*", "send.*", "message.*"]).await;
    seed_chats(&store).await;
    let existing = call(
        &service,
        "chat.open_session",
        json!({"platform": "qq", "chat_type": "group", "group_id": "100"}),
    )
    .await;
    assert_eq!(existing["success"], true);
    assert_eq!(existing["created"], false);
    assert_eq!(existing["stream_id"], "g1");
    assert_eq!(existing["stream"]["group_name"], "Board games");
    let created = call(
        &service,
        "chat.open_session",
        json!({"platform": "qq", "user_id": "u-new"}),
    )
    .await;
    assert_eq!(created["created"], true, "{created}");
    assert_eq!(created["chat_type"], "private");
    let stream_id = created["stream_id"].as_str().unwrap().to_owned();
    let again = call(
        &service,
        "chat.open_session",
        json!({"platform": "qq", "type": "private", "user_id": "u-new"}),
    )
    .await;
    assert_eq!(
        (again["created"].clone(), again["stream_id"].clone()),
        (json!(false), json!(stream_id))
    );
    // What a plugin sends there lands in the new stream's history.
    call(
        &service,
        "send.text",
        json!({"text": "hello", "stream_id": stream_id}),
    )
    .await;
    let recent = call(
        &service,
        "message.get_recent",
        json!({"chat_id": stream_id}),
    )
    .await;
    assert_eq!(recent["messages"][0]["processed_plain_text"], "hello");
    let missing = call(
        &service,
        "chat.open_session",
        json!({"platform": "qq", "chat_type": "group"}),
    )
    .await;
    assert_eq!(missing["success"], false);
    assert!(missing["error"].as_str().unwrap().contains("`group_id`"));
}
