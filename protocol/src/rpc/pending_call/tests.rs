//! `start_call` against a hand-driven peer: what is on the wire before the response future is
//! ever polled, and what dropping it does.

use std::time::Duration;

use crate::rpc::tests::raw_peer::{RawPeer, silent_peer_with};
use crate::rpc::{PeerConfig, RpcPeer};
use crate::wire::{Envelope, ErrorCode, MessageType, decode_payload};

fn peer_and_raw() -> (RpcPeer, RawPeer) {
    silent_peer_with(PeerConfig::new("caller"))
}

#[tokio::test]
async fn a_started_call_is_sent_before_it_is_awaited_and_its_payload_may_go() {
    let (peer, mut raw) = peer_and_raw();
    let pending = {
        // Dropped before the response is awaited: the request no longer needs it.
        let payload = vec![String::from("left"), String::from("right")];
        peer.start_call("echo", "demo", &payload, Duration::from_secs(5))
            .unwrap()
    };
    let (request, frame) = raw.recv().await;
    assert_eq!(request.message_type, MessageType::Request);
    assert_eq!(request.request_id, pending.request_id());
    assert_eq!((&*request.method, &*request.plugin_id), ("echo", "demo"));
    assert_eq!(request.timeout_ms, 5_000);
    let sent: Vec<String> = decode_payload(&frame).unwrap();
    assert_eq!(sent, ["left", "right"]);

    raw.send(&Envelope::response_to(&request, 7u64)).await;
    let response = pending.await.unwrap();
    assert_eq!(response.header.request_id, request.request_id);
    assert_eq!(response.payload::<u64>().unwrap(), 7);
    assert_eq!(peer.in_flight(), 0);
}

#[tokio::test]
async fn dropping_a_started_call_cancels_it_and_a_timeout_names_the_method() {
    let (peer, mut raw) = peer_and_raw();
    let dropped = peer
        .start_call("hang", "", &(), Duration::from_secs(5))
        .unwrap();
    let id = dropped.request_id();
    let (request, _) = raw.recv().await;
    assert_eq!(request.request_id, id);
    assert_eq!(peer.in_flight(), 1);
    drop(dropped);
    assert_eq!(peer.in_flight(), 0, "a dropped call is forgotten at once");
    assert_eq!(raw.cancelled(1).await, [id]);

    let late = peer
        .start_call("slow", "", &(), Duration::from_millis(20))
        .unwrap();
    let err = late.await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Timeout);
    assert_eq!(err.message, "request slow timed out after 20ms");
}

#[tokio::test]
async fn a_call_that_cannot_be_sent_fails_at_once_and_leaves_nothing_behind() {
    let (peer, _raw) = peer_and_raw();
    peer.close();
    let err = peer
        .start_call("echo", "", &(), Duration::from_secs(5))
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::PluginCrashed);
    assert_eq!(peer.in_flight(), 0);
}

/// A payload whose encoding fails, as a value that serde cannot represent would.
struct Unencodable;

impl serde::Serialize for Unencodable {
    fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom("not representable"))
    }
}

#[tokio::test]
async fn a_payload_that_does_not_encode_fails_at_once_and_sends_nothing() {
    let (peer, mut raw) = peer_and_raw();
    let err = peer
        .start_call("echo", "", &Unencodable, Duration::from_secs(5))
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::BadPayload);
    assert!(err.message.contains("not representable"), "{}", err.message);
    assert_eq!(peer.in_flight(), 0);
    assert!(raw.nothing_more().await, "nothing went over the wire");

    // The peer still serves the next call.
    let next = peer
        .start_call("echo", "", &(), Duration::from_secs(5))
        .unwrap();
    let (request, _) = raw.recv().await;
    raw.send(&Envelope::response_to(&request, 3u64)).await;
    assert_eq!(next.await.unwrap().payload::<u64>().unwrap(), 3);
}
