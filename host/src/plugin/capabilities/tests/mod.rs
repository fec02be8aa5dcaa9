//! Capabilities against a real in-memory store, with the arguments `maibot_sdk` sends and the
//! result keys it reads.

mod chat_world;
mod database;
mod grants;
mod llm;
mod maisaka;
mod render;
mod send;
mod shapes;
mod tool;

use std::sync::Arc;

use maitool_protocol::JsonObject;
use maitool_protocol::rpc::RpcError;
use maitool_protocol::wire::ErrorCode;
use serde_json::Value;

use super::{CapabilityService, StoreSink};
use crate::builtin::Store;
use crate::builtin::engine::{ChatType, NewMessage, StreamInfo};
use crate::plugin::KvStore;

const PLUGIN: &str = "demo.plugin";

/// A service over a fresh store, delivering `send.*` into it, with `grants` for [`PLUGIN`].
async fn service(grants: &[&str]) -> (CapabilityService, Store) {
    let store = Store::in_memory().await.unwrap();
    let service = CapabilityService::new(
        Arc::new(StoreSink::new(store.clone())),
        KvStore::in_memory().unwrap(),
    );
    service.attach_store(store.clone());
    service.configure_plugin(
        PLUGIN,
        grants.iter().map(|g| g.to_string()).collect(),
        JsonObject::new(),
    );
    (service, store)
}

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

async fn call(service: &CapabilityService, capability: &str, args: Value) -> Value {
    service
        .call(PLUGIN, capability, &object(args))
        .await
        .unwrap_or_else(|err| panic!("{capability}: {err:?}"))
}

async fn refused(service: &CapabilityService, capability: &str, args: Value) -> RpcError {
    match service.call(PLUGIN, capability, &object(args)).await {
        Ok(value) => panic!("{capability} answered {value}"),
        Err(err) => err,
    }
}

fn assert_bad_payload(err: &RpcError, argument: &str) {
    assert_eq!(err.code, ErrorCode::BadPayload, "{err:?}");
    assert!(err.message.contains(argument), "{err:?}");
}

/// A group stream `g1` (qq group 100) with three messages at t = 1000, 2000, 3000 (the last
/// from the bot), and a private stream `p1` (qq user u9) with one.
async fn seed_chats(store: &Store) {
    for (stream_id, chat_type, target, name) in [
        ("g1", ChatType::Group, "100", "Board games"),
        ("p1", ChatType::Private, "u9", "Carol"),
    ] {
        store
            .upsert_stream(StreamInfo {
                stream_id: stream_id.into(),
                platform: "qq".into(),
                chat_type: Some(chat_type),
                target_id: target.into(),
                name: name.into(),
            })
            .await
            .unwrap();
    }
    for (id, stream, sender, is_bot, text, time) in [
        ("m1", "g1", "Alice", false, "saturday?", 1000.0),
        ("m2", "g1", "Bob", false, "sure", 2000.0),
        ("m3", "g1", "bot", true, "count me in", 3000.0),
        ("m4", "p1", "Carol", false, "hi", 1500.0),
    ] {
        store
            .append_message(NewMessage {
                message_id: id.into(),
                stream_id: stream.into(),
                sender_id: format!("u-{sender}"),
                sender_name: sender.into(),
                is_bot,
                text: text.into(),
                time: Some(time),
                ..NewMessage::default()
            })
            .await
            .unwrap();
    }
}
