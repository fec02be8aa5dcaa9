//! Pool token proofs on the wire: a member speaks `runner.hello` by hand to a real host
//! runtime's pool, over TLS 1.3 with certificates made here or over plain TCP on loopback,
//! and replays, delays or sends in clear what a real member would not.

mod pool_support;

use std::time::Duration;

use pool_support::raw_member::{RawMember, hello_frame};
use pool_support::*;

fn host_log() -> String {
    maitool_e2e::logs::lines().join("\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tls_hello_replayed_on_another_connection_is_refused_and_the_pool_keeps_serving() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::make(dir.path(), "good");
    let (harness, addr) = host_with_pool(pool_config(Some(&pki))).await;

    let mut first = RawMember::connect(&addr, Some(&pki)).await;
    let proof = first.prove(TOKEN, "raw", 0);
    let frame = hello_frame("raw", Some(proof), "");
    let answer = first.hello(&frame).await;
    assert!(answer.accepted, "{answer:?}");

    // The same bytes on a second TLS connection, as someone who captured them would send.
    let mut replay = RawMember::connect(&addr, Some(&pki)).await;
    let answer = replay.hello(&frame).await;
    assert!(!answer.accepted, "a replayed hello was accepted");
    assert!(
        answer
            .reason
            .contains("the token proof was made for another connection"),
        "{answer:?}"
    );
    assert!(
        host_log().contains(
            "member \"raw\"'s pool token refused: the token proof was made for another connection"
        ),
        "{}",
        host_log()
    );

    // Relabelled with the second connection's channel, the proof still unmasks to nothing.
    let mut forged_proof = first.prove(TOKEN, "raw", 0);
    let mut forged = RawMember::connect(&addr, Some(&pki)).await;
    forged_proof.channel = forged.prove(TOKEN, "raw", 0).channel;
    let answer = forged
        .hello(&hello_frame("raw", Some(forged_proof), ""))
        .await;
    assert!(!answer.accepted);
    assert!(
        answer.reason.contains("invalid pool token for pool p1"),
        "{answer:?}"
    );

    // A real member still joins and serves.
    let token = dir.path().join("token");
    std::fs::write(&token, TOKEN).unwrap();
    let good = MemberSpec::new(dir.path(), &addr, &token, "good").tls(&pki);
    let _good = Running(good.spawn());
    until("the good member", Duration::from_secs(30), || {
        harness
            .runtime
            .pool_members("p1")
            .unwrap()
            .contains(&"good".to_owned())
    })
    .await;
    let answer = call(
        &harness,
        "p1_echo",
        serde_json::json!({"text": "ok"}),
        "t-1",
    )
    .await;
    assert!(answer.success, "{answer:?}");
    drop(first);
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_plain_tcp_a_proof_is_good_once_and_only_while_recent_and_a_clear_token_is_refused() {
    let (harness, addr) = host_with_pool(pool_config(None)).await;

    let mut first = RawMember::connect(&addr, None).await;
    let frame = hello_frame("raw", Some(first.prove(TOKEN, "raw", 0)), "");
    assert!(first.hello(&frame).await.accepted);

    let mut again = RawMember::connect(&addr, None).await;
    let answer = again.hello(&frame).await;
    assert!(!answer.accepted, "a replayed plain-TCP hello was accepted");
    assert!(
        answer
            .reason
            .contains("the proof's nonce was already used: a replayed hello"),
        "{answer:?}"
    );

    let mut late = RawMember::connect(&addr, None).await;
    let stale = late.prove(TOKEN, "raw", 120_000);
    let answer = late.hello(&hello_frame("raw", Some(stale), "")).await;
    assert!(!answer.accepted);
    assert!(
        answer
            .reason
            .contains("on plain TCP a proof must be within 60000 ms"),
        "{answer:?}"
    );

    let mut clear = RawMember::connect(&addr, None).await;
    let answer = clear.hello(&hello_frame("raw", None, TOKEN)).await;
    assert!(!answer.accepted, "a token sent in clear was accepted");
    assert!(
        answer.reason.contains("pool p1 needs a token proof")
            && answer.reason.contains("sent in clear"),
        "{answer:?}"
    );

    let mut other_member = RawMember::connect(&addr, None).await;
    let proof_for_raw = other_member.prove(TOKEN, "raw", 0);
    let answer = other_member
        .hello(&hello_frame("someone-else", Some(proof_for_raw), ""))
        .await;
    assert!(
        !answer.accepted,
        "a proof made for another member name was accepted"
    );

    let log = host_log();
    assert!(
        log.contains("member \"raw\"'s pool token refused: the proof's nonce was already used"),
        "{log}"
    );
    drop(first);
    harness.stop().await;
}
