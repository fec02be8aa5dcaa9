//! A peer's requests beyond `max_incoming` are refused at once, and a flood from a peer that
//! never reads cannot pile up handler tasks.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures::FutureExt;
use futures::future::{BoxFuture, join_all};
use tokio::io::AsyncWriteExt;
use tokio::sync::Semaphore;

use crate::rpc::*;
use crate::wire::{EmptyPayload, Envelope, ErrorCode, encode_envelope};

const BOUND: Duration = Duration::from_secs(10);

/// Counts calls; each waits for a permit of `gate` (none: answers at once).
struct Gated {
    handled: Arc<AtomicUsize>,
    gate: Option<Arc<Semaphore>>,
}

impl RequestHandler for Gated {
    fn handle(&self, _request: IncomingMessage) -> BoxFuture<'static, Result<Payload, RpcError>> {
        self.handled.fetch_add(1, Ordering::SeqCst);
        let gate = self.gate.clone();
        async move {
            if let Some(gate) = gate {
                let _pass = gate.acquire().await;
            }
            Ok(Payload::empty())
        }
        .boxed()
    }
}

fn limited(name: &str, max_incoming: usize, send_queue_capacity: usize) -> PeerConfig {
    PeerConfig {
        max_incoming,
        send_queue_capacity,
        ..PeerConfig::new(name)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_beyond_max_incoming_get_back_pressure_at_once() {
    let (a, b) = tokio::io::duplex(1 << 20);
    let gate = Arc::new(Semaphore::new(0));
    let handled = Arc::new(AtomicUsize::new(0));
    let server = Gated {
        handled: Arc::clone(&handled),
        gate: Some(Arc::clone(&gate)),
    };
    let _server = RpcPeer::start(a, Arc::new(server), limited("server", 4, 64));
    let idle = Gated {
        handled: Arc::new(AtomicUsize::new(0)),
        gate: None,
    };
    let client = RpcPeer::start(b, Arc::new(idle), PeerConfig::new("client"));

    let calls: Vec<_> = (0..10)
        .map(|_| {
            let client = client.clone();
            tokio::spawn(async move {
                client
                    .call::<_, EmptyPayload>("work", "", &EmptyPayload {}, BOUND)
                    .await
            })
        })
        .collect();
    // Four are being served; the other six are answered without waiting for the gate.
    let mut calls = calls;
    let refused = tokio::time::timeout(BOUND, async {
        let mut refused = Vec::new();
        while refused.len() < 6 {
            if let Some(done) = calls.iter().position(|call| call.is_finished()) {
                refused.push(calls.swap_remove(done).await.unwrap());
            } else {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }
        refused
    })
    .await
    .expect("the excess calls are answered while the gate is closed");
    for outcome in refused {
        let err = outcome.unwrap_err();
        assert_eq!(err.code, ErrorCode::BackPressure);
        assert_eq!(
            err.message,
            "too many requests in flight: at most 4 are served at once"
        );
    }
    assert_eq!(handled.load(Ordering::SeqCst), 4);
    assert!(calls.iter().all(|call| !call.is_finished()));

    // The four served ones finish once the gate opens, and the slots are free again.
    gate.add_permits(100);
    for call in calls {
        let served = tokio::time::timeout(BOUND, call).await.unwrap().unwrap();
        assert!(served.is_ok(), "{served:?}");
    }
    let later = join_all(
        (0..4).map(|_| client.call::<_, EmptyPayload>("work", "", &EmptyPayload {}, BOUND)),
    )
    .await;
    assert!(later.iter().all(Result::is_ok), "{later:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_from_a_peer_that_never_reads_holds_at_most_max_incoming_tasks() {
    flood_from_a_peer_that_never_reads().await;
}

/// On one thread requests are answered inline and their answers kept by the reader until it
/// runs out of frames (`replies.rs`): they must hold their slots just the same.
#[tokio::test(flavor = "current_thread")]
async fn a_flood_from_a_peer_that_never_reads_holds_at_most_max_incoming_answers_inline() {
    flood_from_a_peer_that_never_reads().await;
}

async fn flood_from_a_peer_that_never_reads() {
    // A small pipe the flooder never reads: the server's answers back up at once.
    let (server_io, mut flooder) = tokio::io::duplex(4096);
    let handled = Arc::new(AtomicUsize::new(0));
    let server = Gated {
        handled: Arc::clone(&handled),
        gate: None,
    };
    let peer = RpcPeer::start(server_io, Arc::new(server), limited("server", 16, 8));

    let requests = 20_000u64;
    let write = async {
        for id in 1..=requests {
            let body =
                encode_envelope(&Envelope::request(id, "work", "", 0, EmptyPayload {})).unwrap();
            flooder
                .write_all(&(body.len() as u32).to_be_bytes())
                .await
                .unwrap();
            flooder.write_all(&body).await.unwrap();
        }
    };
    // The whole flood goes through only if the server keeps reading.
    tokio::time::timeout(BOUND, write)
        .await
        .expect("the server keeps reading a flood");
    // Served: the permits' worth, the send queue's and what fits in the pipe; the rest was
    // refused without a task.
    let served = handled.load(Ordering::SeqCst);
    assert!(served >= 16, "{served}");
    assert!(served < 200, "{served} of {requests} requests got a task");
    assert!(!peer.is_closed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_response_that_finds_the_send_queue_full_waits_instead_of_vanishing() {
    answers_that_find_the_send_queue_full().await;
}

/// Inline answers that find the sink busy and the queue full wait in a task, none lost.
#[tokio::test(flavor = "current_thread")]
async fn inline_answers_that_find_the_send_queue_full_wait_instead_of_vanishing() {
    answers_that_find_the_send_queue_full().await;
}

async fn answers_that_find_the_send_queue_full() {
    // A tiny pipe and a one-frame queue: most answers find the queue full.
    let (a, b) = tokio::io::duplex(256);
    let server = Gated {
        handled: Arc::new(AtomicUsize::new(0)),
        gate: None,
    };
    let _server = RpcPeer::start(a, Arc::new(server), limited("server", 1024, 1));
    let idle = Gated {
        handled: Arc::new(AtomicUsize::new(0)),
        gate: None,
    };
    let client = RpcPeer::start(b, Arc::new(idle), PeerConfig::new("client"));
    let answers = join_all(
        (0..300).map(|_| client.call::<_, EmptyPayload>("work", "", &EmptyPayload {}, BOUND)),
    )
    .await;
    let failed: Vec<_> = answers.iter().filter_map(|a| a.as_ref().err()).collect();
    assert!(
        failed.is_empty(),
        "{} of 300 lost: {:?}",
        failed.len(),
        failed.first()
    );
}
