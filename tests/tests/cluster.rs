//! Several `maitool serve` processes on one PostgreSQL store list themselves in its `hosts`
//! table, and `maitool status` of any of them shows them all: ready or starting, stale once
//! killed, gone once stopped cleanly, forgotten later. A balancer's probes (`GET /readyz`,
//! `maitool status --ready`) say ready only once a client's first tool listing would be
//! complete. Real processes, a real database (`.ci/start-postgres.sh`), a real MCP server that
//! comes up only when the test says so.

mod cluster_support;

use std::time::{Duration, Instant};

use cluster_support::{Node, Setup, get, poll, post_mcp};
use maitool_e2e::cli::Maitool;
use maitool_e2e::postgres::{TestDatabase, fresh_database};
use nix::sys::signal::Signal;
use serde_json::Value;

const STALE_AFTER: Duration = Duration::from_millis(2000);
const HEARTBEAT: Duration = Duration::from_millis(200);

/// The row of the host whose MCP URL is `url`.
fn row<'a>(hosts: &'a [Value], url: &str) -> Option<&'a Value> {
    hosts.iter().find(|host| host["mcp_address"] == url)
}

fn state_of(hosts: &[Value], url: &str) -> Option<String> {
    row(hosts, url).map(|host| host["state"].as_str().unwrap().to_owned())
}

async fn host_ids(database: &TestDatabase) -> Vec<String> {
    let client = database.connect().await;
    client
        .query("SELECT host_id FROM hosts ORDER BY host_id", &[])
        .await
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect()
}

/// Two hosts on one database, one of them still starting: each one's `status` lists both,
/// with the starting one shown starting (and what it waits for) until its MCP server is up.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hosts_on_one_database_each_show_both_ready_or_starting() {
    let Some(database) = fresh_database("cluster_two_hosts").await else {
        return;
    };
    let a = Node::start(Setup {
        database: Some(&database),
        gated: false,
        ..Setup::default()
    });
    let b = Node::start(Setup {
        database: Some(&database),
        gated: true,
        ..Setup::default()
    });
    for (who, node) in [("a", &a), ("b", &b)] {
        poll(
            &format!("{who}'s status shows a ready and b starting"),
            || {
                let hosts = node.cluster();
                hosts.len() == 2
                    && state_of(&hosts, &a.url).as_deref() == Some("ready")
                    && state_of(&hosts, &b.url).as_deref() == Some("starting")
            },
        );
    }
    let hosts = a.cluster();
    let starting = row(&hosts, &b.url).unwrap();
    assert!(
        starting["waiting_for"]
            .as_str()
            .unwrap()
            .contains("MCP server gated"),
        "{starting}"
    );
    let ready = row(&hosts, &a.url).unwrap();
    assert!(ready["tools"].as_i64().unwrap() > 0, "{ready}");
    assert_eq!(ready["pid"].as_i64(), Some(a.child.id() as i64), "{ready}");
    b.open_gate();
    for (who, node) in [("a", &a), ("b", &b)] {
        poll(&format!("{who}'s status shows both ready"), || {
            let hosts = node.cluster();
            hosts.len() == 2
                && state_of(&hosts, &a.url).as_deref() == Some("ready")
                && state_of(&hosts, &b.url).as_deref() == Some("ready")
        });
    }
    // The human form says the same.
    let (code, out, err) = b.maitool.run(&["status"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("cluster: 2 hosts on "), "{out}");
    assert!(out.contains(&format!("mcp={}", a.url)), "{out}");
    assert!(out.contains(&format!("mcp={}", b.url)), "{out}");
    drop((a, b));
    database.drop_database().await;
}

/// A host killed with SIGKILL writes nothing more: after the staleness window the others show
/// it stale, and after `forget_after_ms` their heartbeats delete it. A host stopped cleanly
/// deletes its own row at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_host_turns_stale_then_is_forgotten_and_a_stopped_one_leaves_at_once() {
    let Some(database) = fresh_database("cluster_stale").await else {
        return;
    };
    let setup = || Setup {
        database: Some(&database),
        gated: false,
        ..Setup::default()
    };
    let (a, b, c) = (
        Node::start(setup()),
        Node::start(setup()),
        Node::start(setup()),
    );
    poll("a's status shows three ready hosts", || {
        let hosts = a.cluster();
        hosts.len() == 3
            && [&a, &b, &c]
                .iter()
                .all(|node| state_of(&hosts, &node.url).as_deref() == Some("ready"))
    });

    b.signal(Signal::SIGKILL);
    let killed = Instant::now();
    poll("a's status shows b stale", || {
        state_of(&a.cluster(), &b.url).as_deref() == Some("stale")
    });
    // Its last row was written at most a heartbeat before the kill.
    assert!(
        killed.elapsed() >= STALE_AFTER - HEARTBEAT,
        "b was shown stale {:?} after it was killed, before the {STALE_AFTER:?} window",
        killed.elapsed()
    );
    let hosts = a.cluster();
    assert_eq!(state_of(&hosts, &a.url).as_deref(), Some("ready"));
    assert_eq!(state_of(&hosts, &c.url).as_deref(), Some("ready"));
    let (_, out, _) = c.maitool.run(&["status"]);
    assert!(out.contains(" stale "), "{out}");

    // A clean stop: c's row is gone as soon as it has exited, well before it could go stale.
    let before = host_ids(&database).await;
    assert_eq!(before.len(), 3, "{before:?}");
    let status = c.stop();
    assert!(status.success(), "c exited with {status}");
    let after = host_ids(&database).await;
    assert_eq!(after.len(), 2, "c's row outlived its clean stop: {after:?}");
    assert!(
        after.iter().all(|id| before.contains(id)),
        "{before:?} → {after:?}"
    );

    // b, silent since its kill, is deleted by a's heartbeat after forget_after_ms (6 s).
    poll("b is forgotten", || {
        let hosts = a.cluster();
        row(&hosts, &b.url).is_none() && hosts.len() == 1
    });
    assert!(killed.elapsed() >= Duration::from_millis(6000) - HEARTBEAT);
    drop(a);
    database.drop_database().await;
}

/// The database refuses connections and drops the host's for a while: the host keeps serving
/// (its control socket, its MCP front), warns once that its heartbeat fails, and lists itself
/// again when the database is back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_that_goes_away_costs_the_heartbeat_not_the_host() {
    let Some(database) = fresh_database("cluster_outage").await else {
        return;
    };
    let a = Node::start(Setup {
        database: Some(&database),
        gated: false,
        ..Setup::default()
    });
    poll("a lists itself", || a.cluster().len() == 1);
    let admin = database.connect_admin().await;
    let name = database.name().to_owned();
    admin
        .batch_execute(&format!(
            "ALTER DATABASE \"{name}\" ALLOW_CONNECTIONS false"
        ))
        .await
        .unwrap();
    admin
        .execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1",
            &[&name],
        )
        .await
        .unwrap();
    poll("a warns that its heartbeat fails", || {
        a.stderr().contains("cannot write this host's heartbeat")
    });
    // Past the staleness window into the outage (so that only a new row can show ready
    // again): still serving.
    std::thread::sleep(STALE_AFTER + HEARTBEAT * 2);
    let status = a.status();
    let error = status["cluster"]["error"].as_str().unwrap_or_default();
    assert!(error.contains("is unreachable"), "{}", status["cluster"]);
    assert_eq!(get(&a.base, "/livez").0, 200);
    assert_eq!(get(&a.base, "/readyz").0, 200);
    assert_eq!(
        a.stderr()
            .matches("cannot write this host's heartbeat")
            .count(),
        1,
        "the heartbeat warned more than once in one outage:\n{}",
        a.stderr()
    );

    admin
        .batch_execute(&format!("ALTER DATABASE \"{name}\" ALLOW_CONNECTIONS true"))
        .await
        .unwrap();
    poll("a says its heartbeat is written again", || {
        a.stderr().contains("heartbeat written again")
    });
    poll("a lists itself ready again", || {
        let status = a.status();
        let hosts = status["cluster"]["hosts"].as_array().cloned();
        hosts.is_some_and(|hosts| state_of(&hosts, &a.url).as_deref() == Some("ready"))
    });
    let status = a.stop();
    assert!(status.success(), "a exited with {status}");
    database.drop_database().await;
}

/// `GET /readyz` and `maitool status --ready` say not ready, naming the source, while the
/// first listing would miss an MCP server that is starting; ready once it is up. `/livez`
/// (and `/healthz`) answers throughout. On the embedded store `status` says nothing of a cluster.
#[test]
fn the_probes_say_ready_only_once_the_first_listing_would_be_complete() {
    let node = Node::start(Setup {
        database: None,
        gated: true,
        ..Setup::default()
    });
    for path in ["/livez", "/healthz"] {
        assert_eq!(get(&node.base, path), (200, "ok\n".to_owned()), "{path}");
    }
    let (code, body) = get(&node.base, "/readyz");
    assert_eq!(code, 503, "{body}");
    assert!(
        body.contains("not ready") && body.contains("MCP server gated"),
        "{body}"
    );
    let (code, out, _) = node.maitool.run(&["status", "--ready"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("not ready") && out.contains("MCP server gated"),
        "{out}"
    );
    let status = node.status();
    assert_eq!(status["ready"], false, "{status}");
    assert!(status.get("cluster").is_none(), "{status}");

    node.open_gate();
    poll("/readyz answers 200", || {
        get(&node.base, "/readyz").0 == 200
    });
    assert_eq!(get(&node.base, "/readyz").1, "ready\n");
    let (code, out, err) = node.maitool.run(&["status", "--ready"]);
    assert_eq!((code, out.as_str()), (0, "ready\n"), "{err}");
    assert_eq!(node.status()["ready"], true);
    let (_, out, _) = node.maitool.run(&["status"]);
    assert!(!out.contains("cluster"), "{out}");

    // A probe with no serve behind it fails rather than starting a host of its own.
    let status = node.stop();
    assert!(status.success(), "serve exited with {status}");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("maitool.toml"), "").unwrap();
    let lone = Maitool::new(
        &dir.path().join("maitool.toml"),
        &dir.path().join("control.sock"),
    );
    let (code, out, _) = lone.run(&["status", "--ready"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("not ready: no maitool serve is running"),
        "{out}"
    );
}

/// A client of a revision before 2026-07-28 opens a session on one host; that host dies;
/// the same session goes on through another host on the same database, which restores it
/// from the shared store. A host on the embedded store cannot.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_earlier_revision_session_survives_its_hosts_death_through_another_host() {
    let Some(database) = fresh_database("cluster_sessions").await else {
        return;
    };
    let setup = || Setup {
        database: Some(&database),
        gated: false,
        ..Setup::default()
    };
    let (a, b) = (Node::start(setup()), Node::start(setup()));
    let alone = Node::start(Setup {
        database: None,
        gated: false,
        ..Setup::default()
    });
    let session = open_session(&a.base);
    let list = |id: u64| serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"});
    let (code, _, on_a) = post_mcp(&a.base, &list(2), Some(&session));
    assert_eq!(code, 200, "{on_a}");
    let tools_on_a = on_a["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{on_a}"))
        .len();
    assert!(tools_on_a > 0, "{on_a}");

    // Host A dies without a word; the client's next requests reach host B.
    a.signal(Signal::SIGKILL);
    let (code, _, on_b) = post_mcp(&b.base, &list(3), Some(&session));
    assert_eq!(code, 200, "host B did not restore the session: {on_b}");
    assert_eq!(
        on_b["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("{on_b}"))
            .len(),
        tools_on_a,
        "{on_b}"
    );
    let ping = serde_json::json!({"jsonrpc": "2.0", "id": 4, "method": "ping"});
    let (code, _, pong) = post_mcp(&b.base, &ping, Some(&session));
    assert_eq!(
        (code, &pong["result"]),
        (200, &serde_json::json!({})),
        "{pong}"
    );

    // A host with sessions only in its memory knows nothing of it.
    let (code, _, refused) = post_mcp(&alone.base, &list(5), Some(&session));
    assert_eq!(
        code, 404,
        "a host on the embedded store served a session it never saw: {refused}"
    );

    // The session is kept in the database.
    let client = database.connect().await;
    let stored: i64 = client
        .query_one(
            "SELECT count(*) FROM mcp_sessions WHERE session_id = $1",
            &[&session],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(stored, 1);
    drop((a, b, alone));
    database.drop_database().await;
}

/// An earlier-revision client's `notifications/cancelled` is a POST of its own, which a
/// balancer may send to another host than the call's: that host announces it through the
/// database, and the host running the call cancels it (the MCP server behind it sees the
/// cancel). A cancel that overtakes its call (the two POSTs race) cancels the call when it
/// starts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_that_reaches_another_host_cancels_the_call_where_it_runs() {
    let Some(database) = fresh_database("cluster_cancels").await else {
        return;
    };
    let setup = || Setup {
        database: Some(&database),
        gated: true,
        ..Setup::default()
    };
    let (a, b) = (Node::start(setup()), Node::start(setup()));
    a.open_gate();
    b.open_gate();
    let session = open_session(&a.base);
    let call = |id: u64| {
        serde_json::json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "slow", "arguments": {"ms": 60000, "steps": 60}}
        })
    };
    let cancel = |id: u64| {
        serde_json::json!({
            "jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": id, "reason": "the user gave up"}
        })
    };
    let stats = |node: &Node| {
        let ask = serde_json::json!({
            "jsonrpc": "2.0", "id": 99, "method": "tools/call",
            "params": {"name": "slow_stats", "arguments": {}}
        });
        let (code, _, answer) = post_mcp(&node.base, &ask, Some(&session));
        assert_eq!(code, 200, "{answer}");
        answer["result"]["structuredContent"].clone()
    };

    // The call runs on host A; its cancel reaches host B.
    let running = {
        let (base, session, body) = (a.base.clone(), session.clone(), call(7));
        std::thread::spawn(move || {
            let started = Instant::now();
            let (code, _, answer) = post_mcp(&base, &body, Some(&session));
            (code, answer, started.elapsed())
        })
    };
    poll("the slow call runs on host A", || stats(&a)["started"] == 1);
    let (code, _, refused) = post_mcp(&b.base, &cancel(7), Some(&session));
    assert_eq!(code, 202, "{refused}");
    let (code, answer, took) = running.join().unwrap();
    assert_eq!(code, 200, "{answer}");
    assert!(
        took < Duration::from_secs(30),
        "the call ran on for {took:?}: host A never heard the cancel"
    );
    assert_eq!(
        answer["result"]["content"][0]["text"], "call of slow cancelled by the client",
        "{answer}"
    );
    poll("the MCP server behind host A saw the cancel", || {
        stats(&a)["cancelled"] == 1
    });

    // A cancel that comes first: host B announces it, and host A cancels the call at its start.
    let (code, _, _) = post_mcp(&b.base, &cancel(8), Some(&session));
    assert_eq!(code, 202);
    std::thread::sleep(Duration::from_millis(500));
    let started = Instant::now();
    let (code, _, answer) = post_mcp(&a.base, &call(8), Some(&session));
    assert_eq!(code, 200, "{answer}");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{answer}: the early cancel was lost"
    );
    assert_eq!(
        answer["result"]["content"][0]["text"], "call of slow cancelled by the client",
        "{answer}"
    );
    // Calls nobody cancelled still run to their end.
    let quick = serde_json::json!({
        "jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": {"name": "slow", "arguments": {"ms": 100, "steps": 1}}
    });
    let (code, _, answer) = post_mcp(&a.base, &quick, Some(&session));
    assert_eq!(
        (code, &answer["result"]["isError"]),
        (200, &Value::Bool(false)),
        "{answer}"
    );
    drop((a, b));
    database.drop_database().await;
}

/// `initialize` and `notifications/initialized` as a 2025-06-18 client: the session id.
fn open_session(base: &str) -> String {
    let initialize = serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "earlier-revision-client", "version": "1.0"}
        }
    });
    let (code, session, answer) = post_mcp(base, &initialize, None);
    assert_eq!(code, 200, "{answer}");
    assert_eq!(
        answer["result"]["protocolVersion"], "2025-06-18",
        "{answer}"
    );
    let session = session.expect("a session id");
    let initialized = serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let (code, _, _) = post_mcp(base, &initialized, Some(&session));
    assert_eq!(code, 202);
    session
}
