//! `send.*` with MaiBot's arguments land in the stream's history, where `message.*` read them.

use base64::Engine as _;
use serde_json::json;

use super::{assert_bad_payload, call, refused, service};

/// The smallest PNG signature the store's sniffing recognises.
const PNG: &[u8] = &[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3];

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[tokio::test]
async fn every_send_kind_lands_in_history_with_maibot_arguments() {
    let (service, store) = service(&["send.*", "message.*"]).await;
    let sends = [
        (
            "send.text",
            json!({"text": "hello", "stream_id": "s1", "return_details": true}),
        ),
        (
            "send.image",
            json!({"image_base64": b64(PNG), "stream_id": "s1"}),
        ),
        (
            "send.emoji",
            json!({"emoji_base64": b64(PNG), "stream_id": "s1"}),
        ),
        // maitool's own spelling of an image still works.
        ("send.image", json!({"data": b64(PNG), "stream_id": "s1"})),
        (
            "send.command",
            json!({"command": "/roll d20", "stream_id": "s1"}),
        ),
        (
            "send.custom",
            json!({"message_type": "dice", "content": {"faces": 20}, "custom_type": "dice",
                   "data": {"faces": 20}, "stream_id": "s1"}),
        ),
        (
            "send.hybrid",
            json!({"segments": [{"type": "text", "content": "look: "},
                                {"type": "image", "content": b64(PNG)}], "stream_id": "s1"}),
        ),
        (
            "send.forward",
            json!({"messages": [{"user_id": "u1", "nickname": "Alice",
                                 "segments": [{"type": "text", "content": "quoted"}]}],
                   "stream_id": "s1"}),
        ),
    ];
    let mut ids = Vec::new();
    for (capability, args) in sends {
        let result = call(&service, capability, args).await;
        assert_eq!(result["success"], true, "{capability}: {result}");
        assert_eq!(result["sent"], true, "{capability}: {result}");
        ids.push(result["message_id"].as_str().unwrap().to_owned());
    }
    let history = call(
        &service,
        "message.get_by_time_in_chat",
        json!({"chat_id": "s1", "start_time": "0", "end_time": "99999999999"}),
    )
    .await;
    let messages = history["messages"].as_array().unwrap();
    let stored: Vec<&str> = messages
        .iter()
        .map(|m| m["message_id"].as_str().unwrap())
        .collect();
    assert_eq!(stored, ids);
    let texts: Vec<&str> = messages
        .iter()
        .map(|m| m["processed_plain_text"].as_str().unwrap())
        .collect();
    assert_eq!(texts[0], "hello");
    assert_eq!(texts[4], "/roll d20");
    assert_eq!(texts[5], r#"[dice] {"faces":20}"#);
    assert_eq!(texts[6], "look: [图片]");
    let images: Vec<usize> = messages
        .iter()
        .map(|m| {
            m["raw_message"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|s| s["type"] == "image")
                .count()
        })
        .collect();
    assert_eq!(images, [0, 1, 1, 1, 0, 0, 1, 0]);
    let forward = store.message(&ids[7]).await.unwrap().unwrap();
    assert!(forward.is_forward, "{forward:?}");
    let image = store.message_image(&ids[1], 0).await.unwrap().unwrap();
    assert_eq!(
        (image.mime_type.as_str(), image.data.as_slice()),
        ("image/png", PNG)
    );
}

#[tokio::test]
async fn bad_send_arguments_name_the_argument() {
    let (service, _) = service(&["send.*"]).await;
    let cases = [
        ("send.text", json!({"text": "hi"}), "stream_id"),
        ("send.text", json!({"stream_id": "s1"}), "text"),
        ("send.image", json!({"stream_id": "s1"}), "image_base64"),
        (
            "send.emoji",
            json!({"emoji_base64": "%%%", "stream_id": "s1"}),
            "emoji_base64",
        ),
        (
            "send.hybrid",
            json!({"segments": "nope", "stream_id": "s1"}),
            "segments",
        ),
        (
            "send.hybrid",
            json!({"segments": [{"type": "image"}], "stream_id": "s1"}),
            "segments[0]",
        ),
        (
            "send.forward",
            json!({"messages": [], "stream_id": "s1"}),
            "messages",
        ),
        (
            "send.custom",
            json!({"content": "x", "stream_id": "s1"}),
            "message_type",
        ),
        ("send.command", json!({"stream_id": "s1"}), "command"),
    ];
    for (capability, args, argument) in cases {
        let err = refused(&service, capability, args).await;
        assert_bad_payload(&err, argument);
    }
    // The service keeps serving after bad input.
    let ok = call(
        &service,
        "send.text",
        json!({"text": "still here", "stream_id": "s1"}),
    )
    .await;
    assert_eq!(ok["success"], true);
}

/// An embedder's sink failing with its own error type, which has a source of its own.
struct FailingSink;

#[derive(Debug, thiserror::Error)]
#[error("the chat backend refused the message")]
struct BackendError(#[source] std::io::Error);

#[async_trait::async_trait]
impl super::super::MessageSink for FailingSink {
    async fn send(
        &self,
        _message: super::super::OutgoingMessage,
    ) -> Result<String, super::super::SinkError> {
        Err(super::super::SinkError::other(BackendError(
            std::io::Error::other("connection reset"),
        )))
    }
}

#[tokio::test]
async fn an_embedders_sink_error_reaches_the_plugin_with_its_sources() {
    let service = super::super::CapabilityService::new(
        std::sync::Arc::new(FailingSink),
        crate::plugin::KvStore::in_memory().unwrap(),
    );
    service.configure_plugin(
        super::PLUGIN,
        vec!["send.*".to_owned()],
        maitool_protocol::JsonObject::new(),
    );
    let err = refused(
        &service,
        "send.text",
        json!({"text": "hi", "stream_id": "s1"}),
    )
    .await;
    assert_eq!(
        err.message,
        "send.text failed: the chat backend refused the message: connection reset"
    );
}

#[test]
fn a_sink_error_keeps_the_embedders_error_for_downcasting() {
    let err = super::super::SinkError::other(BackendError(std::io::Error::other("reset")));
    let super::super::SinkError::Other(inner) = &err else {
        panic!("{err:?}");
    };
    assert!(inner.downcast_ref::<BackendError>().is_some());
    // Transparent: the embedder's error speaks for itself, its source follows it.
    assert_eq!(err.to_string(), "the chat backend refused the message");
    assert_eq!(
        std::error::Error::source(&err).map(ToString::to_string),
        Some("reset".to_owned())
    );
}
