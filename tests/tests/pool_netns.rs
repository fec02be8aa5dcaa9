//! A pool member on another network, serving two hosts on two addresses: the member runs in
//! a network namespace made here, joined to the test's namespace by one veth link per host;
//! one link is cut and restored while calls go on.

mod pool_support;

use std::time::Duration;

use maitool_e2e::netns::Netns;
use pool_support::*;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cut_link_to_one_host_leaves_the_other_serving_and_the_member_returns_when_restored() {
    let Some(netns) = Netns::create("pool_netns", 2) else {
        return;
    };
    let (a_addr, b_addr) = (
        netns.link(0).outside_addr.clone(),
        netns.link(1).outside_addr.clone(),
    );
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::make_for(dir.path(), "net", &[&a_addr, &b_addr]);
    let token = dir.path().join("token");
    std::fs::write(&token, TOKEN).unwrap();
    let host = |addr: &str| {
        let mut config = pool_config(Some(&pki));
        config.listen = format!("{addr}:0").parse().unwrap();
        host_with_pool(config)
    };
    let (a, a_pool) = host(&a_addr).await;
    let (b, b_pool) = host(&b_addr).await;

    let mut spec =
        MemberSpec::new(dir.path(), &format!("{a_pool},{b_pool}"), &token, "far").tls(&pki);
    spec.netns = Some(netns.name.clone());
    let _member = Running(spec.spawn());
    members(&a, 1).await;
    members(&b, 1).await;
    for (harness, id) in [(&a, "a-before"), (&b, "b-before")] {
        let answer = call(harness, "p1_echo", json!({"text": id}), id).await;
        assert!(answer.success, "{id}: {answer:?}");
    }

    // Cut the link to host A: packets are dropped and nobody is told. A's health checks go
    // unanswered, so A lets the member go; B's calls go on meanwhile.
    netns.cut(0);
    let mut during = 0;
    let cut_until = tokio::time::Instant::now() + Duration::from_secs(20);
    while a.runtime.pool_members("p1").is_some_and(|m| !m.is_empty()) {
        assert!(
            tokio::time::Instant::now() < cut_until,
            "host A still lists the member 20 s after its link was cut"
        );
        let id = format!("b-during-{during}");
        let answer = call(&b, "p1_echo", json!({"text": id}), &id).await;
        assert!(
            answer.success,
            "host B failed a call while A's link was cut: {answer:?}"
        );
        during += 1;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for n in 0..10 {
        let id = format!("b-cut-{n}");
        let answer = call(&b, "p1_echo", json!({"text": id}), &id).await;
        assert!(
            answer.success,
            "host B failed a call while A's link was cut: {answer:?}"
        );
    }
    let log = maitool_e2e::logs::lines().join("\n");
    assert!(
        log.contains("stopped answering health checks"),
        "host A says why it let the member go:\n{log}"
    );
    // A call to A now finds no member and waits for one (restart_wait_ms, 10 s), as a call
    // waits for a restarting runner.
    let waiting = {
        let registry = a.registry.clone();
        tokio::spawn(async move {
            let invocation = maitool_protocol::ToolInvocation::new(
                "p1_echo",
                json!({"text": "a-waited"}).as_object().cloned().unwrap(),
            )
            .with_call_id("a-waited");
            registry
                .invoke(
                    invocation,
                    &maitool_protocol::ToolExecutionContext::default(),
                )
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        !waiting.is_finished(),
        "the call to A did not wait for a member"
    );

    // Restore it: the member learns that A closed the connection and dials A again, and the
    // waiting call runs.
    netns.restore(0);
    until(
        "host A has its member back",
        Duration::from_secs(60),
        || {
            a.runtime
                .pool_members("p1")
                .is_some_and(|m| m == ["far".to_owned()])
        },
    )
    .await;
    let waited = tokio::time::timeout(Duration::from_secs(15), waiting)
        .await
        .expect("the waiting call ends")
        .unwrap();
    assert!(
        waited.success,
        "the call that waited for A's member: {waited:?}"
    );
    let answer = call(&a, "p1_echo", json!({"text": "a-after"}), "a-after").await;
    assert!(
        answer.success,
        "host A after the link came back: {answer:?}"
    );
    let answer = call(&b, "p1_echo", json!({"text": "b-after"}), "b-after").await;
    assert!(answer.success, "host B after: {answer:?}");
    let ran = spec.calls();
    for id in [
        "a-before", "b-before", "b-cut-9", "a-waited", "a-after", "b-after",
    ] {
        assert!(
            ran.contains(&id.to_owned()),
            "the member ran no {id}: {ran:?}"
        );
    }
    a.stop().await;
    b.stop().await;
}
