//! A pool member's HTTP probes (`MAITOOL_POOL_HEALTH_ADDRESS`), read as Kubernetes reads
//! them, over real TCP: alive from the start, ready only once a host accepted it, not ready
//! again as soon as it drains, and a probe address it cannot bind stops it with the reason.

mod pool_support;

use std::time::Duration;

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use pool_support::*;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// `GET path` on `address`: the status code and the body.
async fn get(address: &str, path: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(address)
        .await
        .expect("the probe listens");
    stream
        .write_all(
            format!("GET {path} HTTP/1.1\r\nHost: probe\r\nConnection: close\r\n\r\n").as_bytes(),
        )
        .await
        .unwrap();
    let mut response = String::new();
    tokio::time::timeout(Duration::from_secs(5), stream.read_to_string(&mut response))
        .await
        .expect("the probe answers within 5 s")
        .unwrap();
    let status = response
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP response: {response:?}"));
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_owned())
        .unwrap_or_default();
    (status, body)
}

/// The address the member logged for its probes.
async fn probe_address(spec: &MemberSpec) -> String {
    let needle = "probe endpoint listening on ";
    until_logged(spec, needle, Duration::from_secs(10)).await;
    let stderr = spec.stderr();
    let rest = &stderr[stderr.find(needle).unwrap() + needle.len()..];
    rest.split_whitespace().next().unwrap().to_owned()
}

/// Polls `path` until `check` holds for its answer; returns that answer.
async fn probe_until(
    address: &str,
    path: &str,
    what: &str,
    check: impl Fn(u16, &str) -> bool,
) -> (u16, String) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let (status, body) = get(address, path).await;
        if check(status, &body) {
            return (status, body);
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{what}: last answer {status} {body:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_member_is_ready_only_while_a_host_accepts_it_and_not_while_it_drains() {
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, TOKEN).unwrap();
    let wrong_token = dir.path().join("wrong-token");
    std::fs::write(&wrong_token, "not-the-pool-token").unwrap();
    let (harness, addr) = host_with_pool(pool_config(None)).await;

    // Refused by the host: alive, never ready, and the probe says why.
    let mut refused = MemberSpec::new(dir.path(), &addr, &wrong_token, "refused");
    refused.health_address = Some("127.0.0.1:0".into());
    let _refused = Running(refused.spawn());
    let refused_probe = probe_address(&refused).await;
    assert_eq!(get(&refused_probe, "/livez").await.0, 200);
    let (status, body) = probe_until(&refused_probe, "/readyz", "the refusal shows", |_, body| {
        body.contains("invalid pool token")
    })
    .await;
    assert_eq!(status, 503, "{body}");
    assert!(
        body.starts_with("not ready: no host has accepted this member"),
        "{body}"
    );
    let (status, body) = get(&refused_probe, "/metrics").await;
    assert_eq!(status, 404, "{body}");
    assert!(body.contains("GET /livez or /readyz"), "{body}");

    // Accepted: ready.
    let mut member = MemberSpec::new(dir.path(), &addr, &token, "probed");
    member.health_address = Some("127.0.0.1:0".into());
    let running = Running(member.spawn());
    let probe = probe_address(&member).await;
    let (_, body) = probe_until(&probe, "/readyz", "the member gets ready", |status, _| {
        status == 200
    })
    .await;
    assert_eq!(body, "ready: accepted by 1 host connection(s)\n");
    members(&harness, 1).await;

    // Draining with a call in flight: not ready at once, still alive, and the call finishes.
    let slow = {
        let harness = &harness;
        async move { call(harness, "p1_slow", json!({"ms": 1500}), "in-flight").await }
    };
    let drain = async {
        until(
            "the slow call runs on the member",
            Duration::from_secs(10),
            || member.calls().iter().any(|id| id == "in-flight"),
        )
        .await;
        kill(Pid::from_raw(running.0.id() as i32), Signal::SIGTERM).unwrap();
        let (status, body) = probe_until(&probe, "/readyz", "draining shows", |status, _| {
            status != 200
        })
        .await;
        assert_eq!(status, 503);
        assert_eq!(body, "not ready: draining: the member takes no new calls\n");
        assert_eq!(get(&probe, "/livez").await.0, 200, "alive while it drains");
    };
    let (answer, ()) = tokio::join!(slow, drain);
    assert!(answer.success, "the call in flight finished: {answer:?}");
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_probe_address_the_member_cannot_bind_stops_it_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, TOKEN).unwrap();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let mut member = MemberSpec::new(dir.path(), "127.0.0.1:9", &token, "unbound");
    member.health_address = Some(taken.local_addr().unwrap().to_string());
    let mut child = member.spawn();
    let status = tokio::task::spawn_blocking(move || child.wait())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(status.code(), Some(2), "{}", member.stderr());
    let stderr = member.stderr();
    assert!(
        stderr.contains(&format!(
            "cannot listen for probes on {} (MAITOOL_POOL_HEALTH_ADDRESS)",
            taken.local_addr().unwrap()
        )) && stderr.contains("in use"),
        "{stderr}"
    );
}
