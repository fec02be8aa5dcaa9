//! Runner pools end to end: real example plugin processes dial in to a real host runtime
//! over TCP on loopback (TLS 1.3 with certificates made here, or plain TCP), and the host
//! routes calls to them.

mod pool_support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use maitool_host::plugin::{ExpiringToken, TokenEntry};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use pool_support::*;
use serde_json::json;

fn text(result: &maitool_protocol::ToolExecutionResult) -> String {
    serde_json::to_string(&result.content).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls_members_serve_and_a_wrong_certificate_or_token_is_refused_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::make(dir.path(), "good");
    let rogue = Pki::make(dir.path(), "rogue");
    let token = dir.path().join("token");
    std::fs::write(&token, format!("{TOKEN}\n")).unwrap();
    let wrong_token = dir.path().join("wrong-token");
    std::fs::write(&wrong_token, "not-the-pool-token").unwrap();
    let (harness, addr) = host_with_pool(pool_config(Some(&pki))).await;

    let good = MemberSpec::new(dir.path(), &addr, &token, "good").tls(&pki);
    let _good = Running(good.spawn());
    members(&harness, 1).await;
    let answer = call(&harness, "p1_echo", json!({"text": "over TLS"}), "tls-1").await;
    assert!(answer.success, "{answer:?}");
    assert!(text(&answer).contains("over TLS"), "{answer:?}");

    // A client certificate from a CA the host does not trust.
    let mut wrong_cert = MemberSpec::new(dir.path(), &addr, &token, "wrong-cert");
    wrong_cert.tls = Some((
        pki.ca.clone(),
        rogue.client_cert.clone(),
        rogue.client_key.clone(),
    ));
    // A host certificate the member does not trust.
    let mut wrong_ca = MemberSpec::new(dir.path(), &addr, &token, "wrong-ca");
    wrong_ca.tls = Some((
        rogue.ca.clone(),
        pki.client_cert.clone(),
        pki.client_key.clone(),
    ));
    // The right certificates, the wrong token.
    let bad_token = MemberSpec::new(dir.path(), &addr, &wrong_token, "wrong-token").tls(&pki);
    let refused = [&wrong_cert, &wrong_ca, &bad_token];
    let _refused: Vec<Running> = refused.iter().map(|spec| Running(spec.spawn())).collect();

    let limit = Duration::from_secs(20);
    until_logged(
        &wrong_cert,
        "the host refused this member's client certificate (TLS alert UnknownCA)",
        limit,
    )
    .await;
    until_logged(&wrong_ca, "invalid peer certificate", limit).await;
    until_logged(
        &bad_token,
        "host rejected the handshake: invalid pool token for pool p1",
        limit,
    )
    .await;
    let host_log = maitool_e2e::logs::lines().join("\n");
    assert!(
        host_log.contains(
            "member \"wrong-token\"'s pool token refused: the token proof matches none of the accepted tokens"
        ),
        "the host log names the wrong token:\n{host_log}"
    );
    assert!(
        host_log.contains("TLS handshake with 127.0.0.1:") && host_log.contains("failed"),
        "the host log names the failed TLS handshake:\n{host_log}"
    );
    // The host keeps serving, with only the good member.
    assert_eq!(harness.runtime.pool_members("p1").unwrap(), ["good"]);
    let answer = call(&harness, "p1_echo", json!({"text": "still here"}), "tls-2").await;
    assert!(answer.success, "{answer:?}");
    harness.stop().await;
}

/// What the load saw: every call's id and result.
type Outcomes = Arc<std::sync::Mutex<Vec<(String, maitool_protocol::ToolExecutionResult)>>>;

/// Calls `p1_slow` from `workers` tasks until `stop`, each call with its own id.
fn load(
    harness: &Arc<maitool_e2e::plugins::Harness>,
    workers: usize,
    stop: &Arc<AtomicBool>,
) -> (Outcomes, Vec<tokio::task::JoinHandle<()>>) {
    let outcomes: Outcomes = Arc::default();
    let next = Arc::new(AtomicU64::new(0));
    let tasks = (0..workers)
        .map(|_| {
            let (harness, stop, next, outcomes) = (
                harness.clone(),
                stop.clone(),
                next.clone(),
                outcomes.clone(),
            );
            tokio::spawn(async move {
                while !stop.load(Ordering::Relaxed) {
                    let id = format!("c{}", next.fetch_add(1, Ordering::Relaxed));
                    let result = call(&harness, "p1_slow", json!({"ms": 30}), &id).await;
                    outcomes.lock().unwrap().push((id, result));
                }
            })
        })
        .collect();
    (outcomes, tasks)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_members_under_load_one_killed_one_drained_one_replaced_fail_only_the_killed_ones_calls()
 {
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, TOKEN).unwrap();
    let (harness, addr) = host_with_pool(pool_config(None)).await;
    let harness = Arc::new(harness);
    let specs: Vec<MemberSpec> = ["m1", "m2", "m3"]
        .iter()
        .map(|name| MemberSpec::new(dir.path(), &addr, &token, name))
        .collect();
    let mut running: Vec<Running> = specs.iter().map(|spec| Running(spec.spawn())).collect();
    members(&harness, 3).await;

    let stop = Arc::new(AtomicBool::new(false));
    let (outcomes, tasks) = load(&harness, 12, &stop);
    tokio::time::sleep(Duration::from_millis(800)).await;
    // m1 dies with calls in flight.
    running[0].0.kill().unwrap();
    tokio::time::sleep(Duration::from_millis(800)).await;
    // m2 is told to stop, as Kubernetes does: it drains.
    let sigterm = Instant::now();
    kill(Pid::from_raw(running[1].0.id() as i32), Signal::SIGTERM).unwrap();
    let status = loop {
        if let Some(status) = running[1].0.try_wait().unwrap() {
            break status;
        }
        assert!(
            sigterm.elapsed() < Duration::from_secs(5),
            "the drained member still runs 5 s after SIGTERM under load: the host kept \
             routing calls to it ({})",
            specs[1].stderr()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(
        status.success(),
        "the drained member exits cleanly: {status:?}"
    );
    let drained_calls = specs[1].calls().len();
    tokio::time::sleep(Duration::from_millis(800)).await;
    // m3 is replaced by version 2 of the plugin, as a rolling update does: the new member
    // joins, then the old one drains. Version 2 describes `p1_slow` otherwise, so from its
    // registration on only it takes those calls.
    let mut replacement = MemberSpec::new(dir.path(), &addr, &token, "m3-v2");
    replacement.second_version = true;
    running.push(Running(replacement.spawn()));
    until("the new version joins", Duration::from_secs(10), || {
        harness.runtime.pool_members("p1").unwrap() == ["m3", "m3-v2"]
    })
    .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let replaced_calls = specs[2].calls().len();
    kill(Pid::from_raw(running[2].0.id() as i32), Signal::SIGTERM).unwrap();
    until(
        "the old version drains and leaves",
        Duration::from_secs(5),
        || harness.runtime.pool_members("p1").unwrap() == ["m3-v2"],
    )
    .await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    stop.store(true, Ordering::Relaxed);
    for task in tasks {
        task.await.unwrap();
    }

    let outcomes = std::mem::take(&mut *outcomes.lock().unwrap());
    // A call fails only if it was in flight on m1 when it died: sent to it, unanswered.
    let failed: Vec<_> = outcomes
        .iter()
        .filter(|(_, result)| !result.success)
        .collect();
    for (id, result) in &failed {
        assert!(
            result
                .error_message
                .contains("the connection of pool member m1 was lost"),
            "call {id} failed, and not as a call cut off on the killed member: {result:?}"
        );
    }
    eprintln!(
        "{} calls, {} cut off on the killed member",
        outcomes.len(),
        failed.len()
    );
    assert!(
        failed.len() <= 12,
        "at most the calls in flight on m1: {}",
        failed.len()
    );
    assert!(
        outcomes.len() > 150,
        "the load ran: {} calls",
        outcomes.len()
    );
    assert!(
        specs[1].stderr().contains("draining"),
        "{}",
        specs[1].stderr()
    );
    for spec in &specs {
        assert!(!spec.calls().is_empty(), "{} got calls", spec.name);
    }
    assert!(
        replaced_calls > drained_calls,
        "the last old member took the load after the kill and the drain"
    );
    assert!(
        running[2]
            .0
            .try_wait()
            .unwrap()
            .is_some_and(|status| status.success()),
        "the replaced member drained and exited cleanly: {}",
        specs[2].stderr()
    );
    let after_replacement = replacement.calls();
    assert!(
        after_replacement.len() > 20,
        "the new version took the load: {} calls",
        after_replacement.len()
    );
    assert_eq!(harness.runtime.pool_members("p1").unwrap(), ["m3-v2"]);
    running.clear();
    Arc::try_unwrap(harness).ok().unwrap().stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_member_that_stops_answering_is_disconnected_and_reconnects_when_it_wakes() {
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, TOKEN).unwrap();
    let (harness, addr) = host_with_pool(pool_config(None)).await;
    let frozen = MemberSpec::new(dir.path(), &addr, &token, "frozen");
    let awake = MemberSpec::new(dir.path(), &addr, &token, "awake");
    let frozen_process = Running(frozen.spawn());
    let _awake = Running(awake.spawn());
    members(&harness, 2).await;
    let pid = Pid::from_raw(frozen_process.0.id() as i32);
    kill(pid, Signal::SIGSTOP).unwrap();
    // fast_config: a check every 200 ms, unanswered after 300 ms twice.
    until(
        "the frozen member is disconnected",
        Duration::from_secs(10),
        || harness.runtime.pool_members("p1").unwrap() == ["awake"],
    )
    .await;
    for n in 0..10 {
        let answer = call(&harness, "p1_echo", json!({"text": "hi"}), &format!("h{n}")).await;
        assert!(answer.success, "{answer:?}");
    }
    let host_log = maitool_e2e::logs::lines().join("\n");
    assert!(
        host_log.contains("stopped answering health checks"),
        "the host says why it disconnected the member:\n{host_log}"
    );
    kill(pid, Signal::SIGCONT).unwrap();
    members(&harness, 2).await;
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_rotates_mid_run_through_a_reload_without_dropping_a_member() {
    let dir = tempfile::tempdir().unwrap();
    let current = dir.path().join("current");
    std::fs::write(&current, TOKEN).unwrap();
    let next = dir.path().join("next");
    std::fs::write(&next, "pool-token-next").unwrap();
    let config = pool_config(None);
    let (harness, addr) = host_with_pool(config.clone()).await;
    let old = MemberSpec::new(dir.path(), &addr, &current, "old");
    let _old = Running(old.spawn());
    members(&harness, 1).await;
    // A member already given the next token is refused until the host accepts it.
    let new = MemberSpec::new(dir.path(), &addr, &next, "new");
    let _new = Running(new.spawn());
    until_logged(
        &new,
        "invalid pool token for pool p1",
        Duration::from_secs(20),
    )
    .await;

    let mut rollover = config.clone();
    rollover.token_sha256.push(digest("pool-token-next").into());
    let report = harness.runtime.apply_pools(vec![rollover.clone()]).await;
    assert_eq!(report.reconfigured, ["p1"], "{report:?}");
    members(&harness, 2).await;

    // The old token expired: the connected member stays, a new connection with it is
    // refused, and told why.
    let mut retired = rollover;
    retired.token_sha256[0] = TokenEntry::Expiring(ExpiringToken {
        sha256: digest(TOKEN),
        expires: "2026-01-01T00:00:00Z".into(),
    });
    harness.runtime.apply_pools(vec![retired]).await;
    let late = MemberSpec::new(dir.path(), &addr, &current, "late");
    let _late = Running(late.spawn());
    until_logged(
        &late,
        "pool token for pool p1 refused: the token expired at 2026-01-01T00:00:00Z",
        Duration::from_secs(20),
    )
    .await;
    let mut names = harness.runtime.pool_members("p1").unwrap();
    names.sort();
    assert_eq!(names, ["new", "old"]);
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_a_rollout_a_call_goes_only_to_members_that_declare_its_tool_as_registered() {
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, TOKEN).unwrap();
    let (harness, addr) = host_with_pool(pool_config(None)).await;
    let old = MemberSpec::new(dir.path(), &addr, &token, "old");
    let _old = Running(old.spawn());
    members(&harness, 1).await;
    let mut new = MemberSpec::new(dir.path(), &addr, &token, "new");
    new.second_version = true;
    let _new = Running(new.spawn());
    members(&harness, 2).await;
    // A second member of the old version joins after the new one registered.
    let late = MemberSpec::new(dir.path(), &addr, &token, "late-old");
    let _late = Running(late.spawn());
    members(&harness, 3).await;

    for n in 0..12 {
        let echo = call(
            &harness,
            "p1_echo",
            json!({"text": "e"}),
            &format!("echo{n}"),
        )
        .await;
        assert!(echo.success, "{echo:?}");
    }
    for n in 0..12 {
        let v2 = call(&harness, "p1_v2", json!({"text": "v"}), &format!("v2-{n}")).await;
        assert!(v2.success, "{v2:?}");
        let slow = call(&harness, "p1_slow", json!({"ms": 1}), &format!("slow{n}")).await;
        assert!(slow.success, "{slow:?}");
    }
    let ran = |spec: &MemberSpec, prefix: &str| {
        spec.calls()
            .iter()
            .filter(|id| id.starts_with(prefix))
            .count()
    };
    // The tool only version 2 has, and the one it describes otherwise: version 2 only.
    assert_eq!(ran(&new, "v2-"), 12);
    assert_eq!(ran(&new, "slow"), 12);
    assert_eq!(ran(&old, "slow") + ran(&late, "slow"), 0);
    // The tool both declare alike goes to every member.
    for spec in [&old, &new, &late] {
        assert!(ran(spec, "echo") > 0, "{} got no echo call", spec.name);
    }
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_member_serves_two_hosts_and_goes_on_serving_one_when_the_other_stops() {
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, TOKEN).unwrap();
    let (first, first_addr) = host_with_pool(pool_config(None)).await;
    let (second, second_addr) = host_with_pool(pool_config(None)).await;
    // One member, both hosts in MAITOOL_POOL_ADDRESS, as docs/SCALING.md has it.
    let member = MemberSpec::new(
        dir.path(),
        &format!("{first_addr},{second_addr}"),
        &token,
        "both",
    );
    let _member = Running(member.spawn());
    members(&first, 1).await;
    members(&second, 1).await;
    let through_first = call(&first, "p1_echo", json!({"text": "one"}), "via-first").await;
    let through_second = call(&second, "p1_echo", json!({"text": "two"}), "via-second").await;
    assert!(through_first.success, "{through_first:?}");
    assert!(through_second.success, "{through_second:?}");
    let ran = member.calls();
    assert!(
        ran.contains(&"via-first".to_owned()) && ran.contains(&"via-second".to_owned()),
        "{ran:?}"
    );

    first.stop().await;
    until_logged(
        &member,
        "connection to the host ended; reconnecting",
        Duration::from_secs(10),
    )
    .await;
    for n in 0..5 {
        let answer = call(
            &second,
            "p1_echo",
            json!({"text": "on"}),
            &format!("after{n}"),
        )
        .await;
        assert!(
            answer.success,
            "the other host still reaches the member: {answer:?}"
        );
    }
    assert_eq!(second.runtime.pool_members("p1").unwrap(), ["both"]);
    second.stop().await;
}
