//! The sweeper against a hand-driven peer that answers only when told to, on a paused clock:
//! time moves only when every task waits, so each deadline is observed exactly.

use std::time::Duration;

use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::rpc::tests::raw_peer::{RawPeer, silent_peer_with};
use crate::rpc::{PeerConfig, RpcError, RpcPeer};
use crate::wire::{Envelope, ErrorCode};

fn silent_peer() -> (RpcPeer, RawPeer) {
    silent_peer_with(PeerConfig::new("swept"))
}

/// Lets the sweeper task act on what it was told.
async fn let_the_sweeper_run() {
    for _ in 0..10 {
        tokio::task::yield_now().await;
    }
}

/// `method` called in a task of its own, with `limit_ms` to answer.
fn spawn_call(
    peer: &RpcPeer,
    method: &'static str,
    limit_ms: u64,
) -> JoinHandle<Result<u64, RpcError>> {
    let peer = peer.clone();
    tokio::spawn(async move {
        peer.call::<_, u64>(method, "", &(), Duration::from_millis(limit_ms))
            .await
    })
}

/// Calls `method` with 50 ms to answer, unanswered, and checks that it fails with a timeout
/// at its deadline, not later.
async fn times_out_at_50ms(peer: &RpcPeer, method: &str) {
    let started = Instant::now();
    let err = peer
        .call::<_, u64>(method, "", &(), Duration::from_millis(50))
        .await
        .unwrap_err();
    let waited = started.elapsed();
    assert_eq!(err.code, ErrorCode::Timeout);
    assert_eq!(
        err.message,
        format!("request {method} timed out after 50ms")
    );
    assert!(
        (Duration::from_millis(50)..Duration::from_millis(52)).contains(&waited),
        "{method} failed after {waited:?}, not at its 50 ms deadline"
    );
}

#[tokio::test(start_paused = true)]
async fn a_short_deadline_registered_behind_a_long_one_expires_at_its_own_time() {
    let (peer, mut raw) = silent_peer();
    let long = spawn_call(&peer, "slow", 60_000);
    let (long_request, _) = raw.recv().await;

    times_out_at_50ms(&peer, "quick").await;
    assert_eq!(peer.in_flight(), 1, "the long call is still waiting");

    let (quick_request, _) = raw.recv().await;
    assert_eq!(raw.cancelled(1).await, [quick_request.request_id]);

    raw.send(&Envelope::response_to(&long_request, 7u64)).await;
    assert_eq!(long.await.unwrap().unwrap(), 7);
    assert_eq!(peer.in_flight(), 0);
}

#[tokio::test(start_paused = true)]
async fn a_sweep_that_finds_nothing_expired_reschedules_for_the_earliest_deadline_left() {
    let (peer, mut raw) = silent_peer();
    // The first call sets the sweep for 100 ms and is answered at once.
    let first = spawn_call(&peer, "first", 100);
    let (request, _) = raw.recv().await;
    raw.send(&Envelope::response_to(&request, 1u64)).await;
    assert_eq!(first.await.unwrap().unwrap(), 1);

    // Both later deadlines are after the sweep already set, so neither moves it; the sweep at
    // 100 ms finds both waiting and must wake next for the earlier one, registered second.
    let started = Instant::now();
    let late = spawn_call(&peer, "late", 300);
    tokio::task::yield_now().await;
    let early = spawn_call(&peer, "early", 200);
    for (call, limit_ms) in [(early, 200), (late, 300)] {
        let err = call.await.unwrap().unwrap_err();
        let waited = started.elapsed();
        assert_eq!(err.code, ErrorCode::Timeout, "{err}");
        let limit = Duration::from_millis(limit_ms);
        assert!(
            (limit..limit + Duration::from_millis(2)).contains(&waited),
            "{err}: failed after {waited:?}"
        );
    }

    // Exactly one cancel each for the two unanswered calls; the answered one is not cancelled.
    let (late_request, _) = raw.recv().await;
    let (early_request, _) = raw.recv().await;
    assert_eq!(
        raw.cancelled(2).await,
        [early_request.request_id, late_request.request_id]
    );
    assert!(raw.nothing_more().await, "no other cancel was sent");
}

#[tokio::test(start_paused = true)]
async fn an_answer_just_before_the_deadline_wins_and_many_deadlines_expire_together() {
    let (peer, mut raw) = silent_peer();
    let calls: Vec<_> = (0..20).map(|_| spawn_call(&peer, "batch", 200)).collect();
    let mut requests = Vec::new();
    for _ in 0..20 {
        requests.push(raw.recv().await.0);
    }
    // Half are answered 1 ms before their deadline, the rest never.
    tokio::time::sleep(Duration::from_millis(199)).await;
    for request in requests.iter().step_by(2) {
        raw.send(&Envelope::response_to(request, request.request_id))
            .await;
    }
    let mut answered = 0;
    let mut timed_out = 0;
    for (call, request) in calls.into_iter().zip(&requests) {
        match call.await.unwrap() {
            Ok(echoed) => {
                assert_eq!(echoed, request.request_id);
                answered += 1;
            }
            Err(err) => {
                assert_eq!(err.code, ErrorCode::Timeout, "{err}");
                timed_out += 1;
            }
        }
    }
    assert_eq!((answered, timed_out), (10, 10));
    assert_eq!(peer.in_flight(), 0);
    let mut cancelled = raw.cancelled(10).await;
    cancelled.sort_unstable();
    let unanswered: Vec<u64> = requests
        .iter()
        .skip(1)
        .step_by(2)
        .map(|r| r.request_id)
        .collect();
    assert_eq!(cancelled, unanswered);
}

#[tokio::test(start_paused = true)]
async fn a_dropped_call_is_cancelled_once_and_the_sweeper_skips_it() {
    let (peer, mut raw) = silent_peer();
    let call = spawn_call(&peer, "dropped", 100);
    let (request, _) = raw.recv().await;
    call.abort();
    assert_eq!(raw.cancelled(1).await, [request.request_id]);
    // Past the deadline the sweeper finds nothing: no second cancel.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(raw.nothing_more().await);
    assert_eq!(peer.in_flight(), 0);
}

#[tokio::test(start_paused = true)]
async fn a_peer_that_releases_its_idle_timer_has_no_schedule_between_calls_and_still_times_out() {
    let (peer, mut raw) = silent_peer_with(PeerConfig {
        release_idle_timer: true,
        ..PeerConfig::new("released")
    });
    let answered = spawn_call(&peer, "answered", 10_000);
    let (request, _) = raw.recv().await;
    assert!(peer.next_sweep().is_some(), "a waiting call is swept for");
    raw.send(&Envelope::response_to(&request, 1u64)).await;
    assert_eq!(answered.await.unwrap().unwrap(), 1);
    let_the_sweeper_run().await;
    assert_eq!(
        peer.next_sweep(),
        None,
        "no timer is left for the answered call"
    );

    // The next call arms the sweeper again, and its deadline holds to the millisecond.
    times_out_at_50ms(&peer, "unanswered").await;
    let (unanswered, _) = raw.recv().await;
    assert_eq!(raw.cancelled(1).await, [unanswered.request_id]);
}

#[tokio::test(start_paused = true)]
async fn by_default_the_sweep_stays_scheduled_after_the_last_answer() {
    let (peer, mut raw) = silent_peer();
    let answered = spawn_call(&peer, "answered", 10_000);
    let (request, _) = raw.recv().await;
    let scheduled = peer.next_sweep();
    raw.send(&Envelope::response_to(&request, 1u64)).await;
    assert_eq!(answered.await.unwrap().unwrap(), 1);
    let_the_sweeper_run().await;
    assert!(scheduled.is_some());
    assert_eq!(
        peer.next_sweep(),
        scheduled,
        "re-arming per call would cost two wake-ups"
    );
}
