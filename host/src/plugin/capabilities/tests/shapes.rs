//! MaiBot's shapes: image segments of message dictionaries, and each refusal answered the way
//! MaiBot's host answers that capability's failure.

use base64::Engine as _;
use maitool_protocol::wire::ErrorCode;
use serde_json::{Value, json};

use super::{call, refused, service};
use crate::builtin::engine::{ImageData, NewMessage};
use crate::builtin::store::sha256_hex;

#[tokio::test]
async fn image_segments_carry_hash_and_description_and_bytes_on_request() {
    let (service, store) = service(&["message.*"]).await;
    let png = b"\x89PNG\r\n\x1a\nsome-image".to_vec();
    store
        .append_message(NewMessage {
            message_id: "pic".into(),
            stream_id: "s1".into(),
            sender_name: "Alice".into(),
            text: "look".into(),
            images: vec![ImageData {
                mime_type: "image/png".into(),
                data: png.clone(),
                description: "a cat on a mat".into(),
            }],
            ..NewMessage::default()
        })
        .await
        .unwrap();
    let segment = |answer: &Value| answer["raw_message"][1].clone();
    let plain = call(&service, "message.get_by_id", json!({"message_id": "pic"})).await;
    let image = segment(&plain["message"]);
    assert_eq!(
        image,
        json!({"type": "image", "data": "a cat on a mat", "hash": sha256_hex(&png)})
    );
    let with_bytes = call(
        &service,
        "message.get_recent",
        json!({"chat_id": "s1", "include_binary_data": true}),
    )
    .await;
    let image = segment(&with_bytes["messages"][0]);
    assert_eq!(image["hash"], sha256_hex(&png));
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(image["binary_data_base64"].as_str().unwrap())
        .unwrap();
    assert_eq!(bytes, png);
}

#[tokio::test]
async fn refusals_take_the_shape_maibot_gives_each_capability_and_need_no_grant() {
    let (service, _) = service(&["*", "component.*"]).await;
    // MaiBot's handler catches its failure: `{success: false, error}`, which the SDK hands
    // to the plugin, so the plugin's own fallback runs.
    for capability in [
        "maisaka.proactive.trigger",
        "maisaka.reply.generate",
        "frequency.set_adjust",
        "statistics.local.models",
        "llm.transcribe_audio",
        "component.load_plugin",
    ] {
        let answer = call(
            &service,
            capability,
            json!({"stream_id": "s", "intent": "x"}),
        )
        .await;
        assert_eq!(answer["success"], false, "{capability}: {answer}");
        let error = answer["error"].as_str().unwrap();
        assert!(
            error.contains(capability) && error.contains("not provided by maitool"),
            "{capability}: {error}"
        );
    }
    let trigger = call(&service, "maisaka.proactive.trigger", json!({})).await;
    assert!(
        trigger["error"]
            .as_str()
            .unwrap()
            .contains("the plugin's own fallback"),
        "{trigger}"
    );
    // MaiBot lets the failure escape: an error reply, which the runner raises.
    for capability in ["market.search", "webui.claim_upload", "chat.get_avatar"] {
        let err = refused(&service, capability, json!({})).await;
        assert_eq!(
            err.code,
            ErrorCode::CapabilityFailed,
            "{capability}: {err:?}"
        );
        assert!(err.message.contains("not provided by maitool"), "{err:?}");
    }
    // Not a capability in MaiBot at all.
    let gateway = refused(&service, "gateway.route_message", json!({})).await;
    assert_eq!(gateway.code, ErrorCode::MethodNotAllowed);
    // A refusal needs no grant (none can name it): a plugin granted only `send.*` gets the
    // same answer, and its fallback runs.
    let (narrow, _) = super::service(&["send.*"]).await;
    let answer = call(&narrow, "maisaka.proactive.trigger", json!({})).await;
    assert_eq!(answer["success"], false, "{answer}");
}
