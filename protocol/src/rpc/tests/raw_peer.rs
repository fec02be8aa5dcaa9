//! A hand-driven peer for the RPC tests: raw frames in and out, to check exactly what goes
//! over the wire.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::future::BoxFuture;
use futures::{SinkExt, StreamExt};
use serde::Serialize;
use tokio::io::DuplexStream;
use tokio_util::codec::{Framed, LengthDelimitedCodec};

use crate::rpc::{IncomingMessage, Payload, PeerConfig, RequestHandler, RpcError, RpcPeer};
use crate::wire::{self, CancelPayload, Envelope, EnvelopeHeader, ErrorCode, frame_codec};

/// Generous bound so that a broken peer fails a test instead of hanging it.
pub(in crate::rpc) const BOUND: Duration = Duration::from_secs(10);

pub(in crate::rpc) struct RawPeer {
    pub(in crate::rpc) framed: Framed<DuplexStream, LengthDelimitedCodec>,
}

impl RawPeer {
    /// The raw end of a duplex whose other end an `RpcPeer` drives.
    pub(in crate::rpc) fn new(io: DuplexStream) -> RawPeer {
        RawPeer {
            framed: Framed::new(io, frame_codec()),
        }
    }

    pub(in crate::rpc) async fn send<P: Serialize>(&mut self, envelope: &Envelope<P>) {
        self.send_bytes(wire::encode_envelope(envelope).unwrap())
            .await;
    }

    pub(in crate::rpc) async fn send_bytes(&mut self, body: Bytes) {
        self.framed.send(body).await.unwrap();
    }

    pub(in crate::rpc) async fn recv(&mut self) -> (EnvelopeHeader, Bytes) {
        let frame = tokio::time::timeout(BOUND, self.framed.next())
            .await
            .expect("no frame in time")
            .expect("stream ended")
            .unwrap()
            .freeze();
        (wire::decode_header(&frame).unwrap(), frame)
    }

    /// Receives the next frame and checks that it refuses `request_id` with
    /// `E_BAD_PAYLOAD` and a message starting with `prefix`.
    pub(in crate::rpc) async fn refusal(&mut self, request_id: u64, prefix: &str) {
        let (answer, _) = self.recv().await;
        assert_eq!(answer.request_id, request_id);
        let error = answer.error.expect("an error response");
        assert_eq!(error.code, ErrorCode::BadPayload);
        assert!(error.message.starts_with(prefix), "{}", error.message);
    }

    /// The abandoned request ids of the next `count` frames, each a cancel message.
    pub(in crate::rpc) async fn cancelled(&mut self, count: usize) -> Vec<u64> {
        let mut ids = Vec::with_capacity(count);
        for _ in 0..count {
            let (cancel, frame) = self.recv().await;
            assert_eq!(cancel.method, wire::CANCEL_METHOD);
            ids.push(
                wire::decode_payload::<CancelPayload>(&frame)
                    .unwrap()
                    .request_id,
            );
        }
        ids
    }

    /// True when no frame arrives within a second.
    pub(in crate::rpc) async fn nothing_more(&mut self) -> bool {
        tokio::time::timeout(Duration::from_secs(1), self.framed.next())
            .await
            .is_err()
    }
}

/// A handler for a side that serves nothing; only its outgoing calls are under test.
pub(in crate::rpc) struct NoRequests;

impl RequestHandler for NoRequests {
    fn handle(&self, request: IncomingMessage) -> BoxFuture<'static, Result<Payload, RpcError>> {
        let method = request.header.method.clone();
        Box::pin(async move { Err(RpcError::method_not_allowed(&method)) })
    }
}

/// A peer that serves nothing, started with `config`, and the raw end that drives the other
/// side by hand.
pub(in crate::rpc) fn silent_peer_with(config: PeerConfig) -> (RpcPeer, RawPeer) {
    let (near, far) = tokio::io::duplex(64 * 1024);
    let peer = RpcPeer::start(near, Arc::new(NoRequests), config);
    (peer, RawPeer::new(far))
}
