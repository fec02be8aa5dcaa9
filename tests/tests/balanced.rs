//! Three `maitool serve --mcp-http` hosts on one PostgreSQL database behind HAProxy, driven at
//! once by the Python and TypeScript MCP SDK clients of both protocol eras (Python's `legacy`
//! and `auto` modes, the TypeScript SDK 1.32.2 with its sessions and the SDK v2 client on
//! 2026-07-28). Each of the three original hosts is killed in turn, mid-session, and
//! replaced by a new process on the same address one phase later, as an orchestrator would.
//!
//! Asserted, through the clients and through each host directly:
//! - no call of any client fails (a host that died is passed over by the balancer);
//! - the two earlier-revision clients keep their one session each to the end, though every
//!   host that ever held it died (the sessions live in the database, and no client opened a
//!   second);
//! - a note a plugin keeps in its KV store, set through one host, is read through every other;
//! - a reply written through one host is in the chat history read through another;
//! - a component disabled on one host is refused by the others within a second, and by a host
//!   started after;
//! - a `tool_search` discovery and a wait streak of a chat session follow it across hosts;
//! - the Python clients' cancels reach the MCP server behind whichever host ran the call.
//!
//! Needs PostgreSQL (`source .ci/start-postgres.sh`), HAProxy, the Python MCP SDK and the
//! TypeScript SDKs; each missing one is a loud skip, and a failure in CI (`MAITOOL_REQUIRE_*`).

mod cluster_support;
mod mcp_front_support;
mod node_support;

use std::net::SocketAddr;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::path::Path;
use std::process::Command;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use cluster_support::{Node, Setup, poll};
use maitool_e2e::haproxy::{Balancer, haproxy};
use maitool_e2e::postgres::{TestDatabase, fresh_database};
use maitool_e2e::workspace_bin;
use nix::sys::signal::Signal;
use serde_json::{Value, json};

/// How long one client may run: every phase waits for a host to start.
const CLIENT_LIMIT: Duration = Duration::from_secs(300);

/// The chat the replies go to (seeded from examples/seed/messages.json).
const CHAT: &str = "demo-group";

/// The clients, by name: (name, earlier revision with a session).
const CLIENTS: [(&str, bool); 4] = [
    ("py-legacy", true),
    ("py-modern", false),
    ("ts-legacy", true),
    ("ts-modern", false),
];

/// The configuration every host shares (as one ConfigMap would give it): the notes plugin
/// (KV), the built-in tools on a seeded chat, and the example MCP server (gated in
/// `Setup`, opened at once).
fn shared_config() -> String {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    format!(
        "\n[[runners]]\nname = \"notes\"\nexecutable = {:?}\n\n\
         [runners.plugins.\"examples.notes\"]\ncapabilities = [\"kv.*\", \"send.text\"]\n\n\
         [builtin]\nfocus_mode = true\n\n[builtin.seed]\nmessages = {:?}\n",
        workspace_bin("maitool-example-notes").display().to_string(),
        repo.join("examples/seed/messages.json")
            .display()
            .to_string(),
    )
}

fn start_host(database: &TestDatabase, config: &str, listen: &str) -> Node {
    let node = Node::start(Setup {
        database: Some(database),
        gated: true,
        extra: config,
        listen,
    });
    node.open_gate();
    poll("the host is ready", || {
        node.maitool.run(&["status", "--ready"]).0 == 0
    });
    node
}

fn address(node: &Node) -> SocketAddr {
    node.base.trim_start_matches("http://").parse().unwrap()
}

/// One client's plan. Phases end at `ready` steps, where the test kills and replaces hosts.
fn plan(name: &str, lists_all: bool, cancels: bool) -> Value {
    let chat = json!({
        "maitool/session_id": CHAT, "maitool/stream_id": CHAT, "maitool/is_group_chat": true
    });
    let call = |id: &str, tool: &str, arguments: Value| json!({"id": id, "kind": "call", "name": tool, "arguments": arguments});
    let ready = |id: &str| json!({"id": id, "kind": "ready"});
    let next = CLIENTS
        .iter()
        .map(|(other, _)| *other)
        .cycle()
        .skip_while(|other| *other != name)
        .nth(1)
        .unwrap();
    let mut steps = vec![
        json!({"id": "tools", "kind": if lists_all { "list_all" } else { "list" }}),
        call(
            "remember",
            "remember",
            json!({"key": name, "text": format!("note of {name}")}),
        ),
        json!({"id": "reply", "kind": "call", "name": "reply",
               "arguments": {"msg_id": "m-1003", "text": format!("reply of {name}")},
               "meta": chat}),
        ready("kill-1"),
        call("recall-own", "recall", json!({"key": name})),
        json!({"id": "history", "kind": "call", "name": "fetch_history",
               "arguments": {"num": 50}, "meta": chat}),
        ready("kill-2"),
        call("recall-next", "recall", json!({"key": next})),
        ready("toggle"),
        call("disabled", "list_notes", json!({"prefix": ""})),
        ready("kill-3"),
        call("still-disabled", "list_notes", json!({"prefix": ""})),
        call("recall-again", "recall", json!({"key": name})),
    ];
    if cancels {
        steps.push(json!({"id": "cancel", "kind": "cancel", "name": "slow",
                          "arguments": {"ms": 120000, "steps": 120}, "after": 0.5}));
    }
    steps.push(ready("final"));
    steps.push(call("enabled", "list_notes", json!({"prefix": ""})));
    json!(steps)
}

/// A call's result, whichever client reported it (`{"result": R}`, or R itself from the SDK
/// v2 client), or what failed.
fn outcome(step: &Value) -> Result<&Value, String> {
    if let Some(error) = step.get("error") {
        return Err(error.to_string());
    }
    let result = step.get("result").unwrap_or(step);
    if result["isError"] == true {
        return Err(result.to_string());
    }
    Ok(result)
}

fn text(result: &Value) -> String {
    result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|block| block["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

fn client_command(name: &str, python: &Path, url: &str, plan: &Path) -> Command {
    let mut command = client_program(name, python, url);
    command.arg("--plan").arg(plan);
    command
}

fn client_program(name: &str, python: &Path, url: &str) -> Command {
    match name {
        "py-legacy" | "py-modern" => {
            let mut command = Command::new(python);
            command
                .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("python/mcp_front_client.py"))
                .args([
                    "--mode",
                    if name == "py-legacy" {
                        "legacy"
                    } else {
                        "auto"
                    },
                ])
                .args(["--url", url]);
            command
        }
        "ts-legacy" => {
            let mut command = Command::new("node");
            command
                .arg(node_support::script("mcp_client.mjs"))
                .arg("--sdk")
                .arg(node_support::sdk(node_support::SDK_CURRENT).unwrap())
                .args(["--url", url]);
            command
        }
        _ => {
            let mut command = Command::new("node");
            command
                .arg(node_support::script("mcp_client_v2.mjs"))
                .args(["--negotiation", "auto", "--sdk"])
                .arg(node_support::client_v2().unwrap())
                .args(["--url", url]);
            command
        }
    }
}

async fn stored_sessions(database: &TestDatabase) -> i64 {
    let client = database.connect().await;
    client
        .query_one("SELECT count(*) FROM mcp_sessions", &[])
        .await
        .unwrap()
        .get(0)
}

/// `maitool call` on one host (its control socket): the result JSON.
fn call_on(node: &Node, tool: &str, arguments: Value, session: &str) -> Value {
    let arguments = arguments.to_string();
    node.maitool.json(&[
        "call",
        tool,
        "--args",
        &arguments,
        "--session-id",
        session,
        "--stream-id",
        session,
        "--group-chat",
        "--json",
    ])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_hosts_behind_haproxy_lose_no_call_session_or_state_when_each_dies_in_turn() {
    let test = "three_hosts_behind_haproxy";
    let (Some(haproxy), Some(python), Some(_), Some(_)) = (
        haproxy(test),
        mcp_front_support::python(),
        node_support::sdk(node_support::SDK_CURRENT),
        node_support::client_v2(),
    ) else {
        return;
    };
    let Some(database) = fresh_database("balanced").await else {
        return;
    };
    let config = shared_config();
    let hosts: Vec<Node> = (0..3).map(|_| start_host(&database, &config, "")).collect();
    let addresses: Vec<SocketAddr> = hosts.iter().map(address).collect();
    let dir = tempfile::tempdir().unwrap();
    let balancer = Balancer::start(&haproxy, dir.path(), &addresses);
    let url = format!("{}/mcp", balancer.base);
    let runtime = tokio::runtime::Handle::current();

    // hosts[k] is None while host k is dead.
    let hosts: Mutex<Vec<Option<Node>>> = Mutex::new(hosts.into_iter().map(Some).collect());
    let live = |hosts: &Vec<Option<Node>>| -> Vec<usize> {
        (0..hosts.len()).filter(|k| hosts[*k].is_some()).collect()
    };
    let kill = |hosts: &mut Vec<Option<Node>>, k: usize| {
        let node = hosts[k].take().expect("a live host");
        node.signal(Signal::SIGKILL);
        drop(node);
    };
    let replace = |hosts: &mut Vec<Option<Node>>, k: usize| {
        hosts[k] = Some(start_host(&database, &config, &addresses[k].to_string()));
    };
    let meeting = Rendezvous::new(CLIENTS.len());
    let started = Instant::now();
    let at_barrier = |step: &str| {
        meeting.meet(|| {
            eprintln!("{:?}: every client at {step}", started.elapsed());
            let mut hosts = hosts
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            let sessions = runtime.block_on(stored_sessions(&database));
            assert_eq!(
                sessions, 2,
                "at {step}: each earlier-revision client holds one session in the database"
            );
            match step {
                "kill-1" => kill(&mut hosts, 0),
                "kill-2" => {
                    replace(&mut hosts, 0);
                    kill(&mut hosts, 1);
                }
                "toggle" => toggle_on_one_obeyed_by_all(&hosts, &live(&hosts)),
                "kill-3" => {
                    replace(&mut hosts, 1);
                    kill(&mut hosts, 2);
                }
                "final" => {
                    let live = live(&hosts);
                    assert_eq!(live, [0, 1]);
                    cancels_reached_the_calls(&hosts, &live);
                    state_follows_across_hosts(&hosts, &live);
                    let (code, out, err) = hosts[0]
                        .as_ref()
                        .unwrap()
                        .maitool
                        .run(&["enable", "list_notes"]);
                    assert_eq!(code, 0, "{out}{err}");
                }
                other => panic!("no action for {other}"),
            }
        })
    };

    let reports: Vec<(String, Value)> = std::thread::scope(|scope| {
        let runs: Vec<_> = CLIENTS
            .iter()
            .map(|(name, _)| {
                let (python, url) = (&python, &url);
                let command = move |plan: &Path| client_command(name, python, url, plan);
                let plan = plan(name, name.starts_with("py"), name.starts_with("py"));
                let dir = dir.path();
                let (at_barrier, meeting) = (&at_barrier, &meeting);
                scope.spawn(move || {
                    let _failing = BreakOnPanic(meeting, name);
                    let report =
                        maitool_e2e::plan_client::run(command, dir, &plan, CLIENT_LIMIT, |step| {
                            at_barrier(step)
                        });
                    (name.to_string(), report["results"].clone())
                })
            })
            .collect();
        runs.into_iter()
            .map(|run| run.join().expect("a client thread"))
            .collect()
    });
    eprintln!(
        "four clients through three hosts dying in turn: {:?}",
        started.elapsed()
    );

    // Each phase began with a host just killed that the balancer still took for up: calls sent
    // to it failed to connect, and went to another host.
    let redispatched = balancer.server_total("wredis");
    assert!(
        redispatched > 0,
        "no call met a dead host: {}",
        balancer.log()
    );
    eprintln!("calls sent on to another host after meeting a dead one: {redispatched}");
    for (name, results) in &reports {
        let ok = |id: &str| {
            outcome(&results[id]).unwrap_or_else(|err| {
                panic!("{name}: {id} failed: {err}\nhaproxy: {}", balancer.log())
            })
        };
        let tools = &results["tools"]["tools"];
        assert!(
            ["remember", "recall", "reply", "fetch_history", "slow"]
                .iter()
                .all(|tool| tools.as_array().unwrap().iter().any(|t| t["name"] == *tool)),
            "{name}: {tools}"
        );
        ok("remember");
        ok("reply");
        assert_eq!(text(ok("recall-own")), format!("note of {name}"), "{name}");
        assert_eq!(
            text(ok("recall-again")),
            format!("note of {name}"),
            "{name}"
        );
        let history = text(ok("history"));
        for (other, _) in CLIENTS {
            assert!(
                history.contains(&format!("reply of {other}")),
                "{name}: the history lacks {other}'s reply: {history}"
            );
        }
        assert!(text(ok("recall-next")).starts_with("note of "), "{name}");
        for id in ["disabled", "still-disabled"] {
            let refused = outcome(&results[id]).expect_err(&format!(
                "{name}: {id}: a tool disabled on another host ran: {}",
                results[id]
            ));
            assert!(refused.contains("list_notes"), "{name}: {id}: {refused}");
        }
        let listed = text(ok("enabled"));
        for (other, _) in CLIENTS {
            assert!(listed.contains(other), "{name}: {listed}");
        }
        if name.starts_with("py") {
            assert_eq!(
                results["cancel"]["cancelled"], true,
                "{name}: {}",
                results["cancel"]
            );
        }
    }
    drop(balancer);
    drop(hosts);
    database.drop_database().await;
}

/// `list_notes` disabled through one host: within a second every live host refuses it.
fn toggle_on_one_obeyed_by_all(hosts: &[Option<Node>], live: &[usize]) {
    let first = hosts[live[0]].as_ref().unwrap();
    let (code, out, err) = first.maitool.run(&["disable", "list_notes"]);
    assert_eq!(code, 0, "{out}{err}");
    for k in live {
        let node = hosts[*k].as_ref().unwrap();
        let since = Instant::now();
        loop {
            let (code, out, err) = node.maitool.run(&[
                "call",
                "list_notes",
                "--args",
                r#"{"prefix": ""}"#,
                "--json",
            ]);
            // Refused by name: a host that is down or a control socket that fails says other
            // things, and does not count.
            let refused = match serde_json::from_str::<Value>(&out) {
                Ok(result) => {
                    result["success"] == false
                        && result["error_message"]
                            .as_str()
                            .is_some_and(|error| error.contains("list_notes"))
                }
                Err(_) => code != 0 && format!("{out}{err}").contains("list_notes"),
            };
            if refused {
                break;
            }
            assert!(
                since.elapsed() < Duration::from_secs(1),
                "host {k} still runs list_notes a second after another host disabled it"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// The Python clients' cancels (one per era) reached the example MCP server behind whichever
/// host ran each call.
fn cancels_reached_the_calls(hosts: &[Option<Node>], live: &[usize]) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (mut started, mut cancelled) = (0, 0);
        for k in live {
            let stats = call_on(
                hosts[*k].as_ref().unwrap(),
                "slow_stats",
                json!({}),
                "stats",
            );
            let stats = &stats["structured_content"];
            started += stats["started"].as_u64().unwrap_or(0);
            cancelled += stats["cancelled"].as_u64().unwrap_or(0);
        }
        if started == 2 && cancelled == 2 {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{started} slow calls started, {cancelled} cancelled: a cancel did not reach its call"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Through each live host directly: every client's note, every reply, a discovery made on one
/// host seen on another, and a wait streak carried from host to host.
fn state_follows_across_hosts(hosts: &[Option<Node>], live: &[usize]) {
    let nodes: Vec<&Node> = live.iter().map(|k| hosts[*k].as_ref().unwrap()).collect();
    for node in &nodes {
        for (name, _) in CLIENTS {
            let recalled = call_on(node, "recall", json!({"key": name}), CHAT);
            assert_eq!(recalled["success"], true, "{recalled}");
        }
        let history = call_on(node, "fetch_history", json!({"num": 50}), CHAT);
        let history = history.to_string();
        for (name, _) in CLIENTS {
            assert!(history.contains(&format!("reply of {name}")), "{history}");
        }
    }
    // The tools offered to a model in a chat session: a deferred tool only once discovered.
    let offered = |node: &Node, session: &str| -> Vec<String> {
        let definitions = node.maitool.json(&[
            "definitions",
            "--format",
            "openai",
            "--session-id",
            session,
            "--json",
        ]);
        definitions["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("{definitions}"))
            .iter()
            .filter_map(|tool| tool["function"]["name"].as_str().map(str::to_owned))
            .collect()
    };
    let (a, b) = (nodes[0], nodes[1]);
    let deferred = "view_forward_message".to_owned();
    assert!(!offered(b, "finder").contains(&deferred));
    let found = call_on(
        a,
        "tool_search",
        json!({"query": "view_forward_message"}),
        "finder",
    );
    assert_eq!(found["success"], true, "{found}");
    assert!(
        offered(b, "finder").contains(&deferred),
        "a tool found through one host is not offered through another"
    );
    let streak: Vec<Value> = [a, b, a]
        .iter()
        .map(|node| {
            call_on(node, "wait", json!({"seconds": 1}), "waiter")["metadata"]
                ["consecutive_wait_count"]
                .clone()
        })
        .collect();
    assert_eq!(streak, [json!(1), json!(2), json!(3)]);
}

/// Where the clients meet at each `ready` step: the last to arrive acts for all (kills or
/// starts hosts) while the others wait, and all go on together. A client that fails, or an
/// action that fails, breaks the meeting: every waiting client then fails too, instead of
/// waiting for one that will never come.
struct Rendezvous {
    state: Mutex<Meeting>,
    turned: Condvar,
    parties: usize,
}

struct Meeting {
    arrived: usize,
    generation: u64,
    broken: Option<String>,
}

impl Rendezvous {
    fn new(parties: usize) -> Rendezvous {
        Rendezvous {
            state: Mutex::new(Meeting {
                arrived: 0,
                generation: 0,
                broken: None,
            }),
            turned: Condvar::new(),
            parties,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Meeting> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn meet(&self, act: impl FnOnce()) {
        let mut meeting = self.lock();
        if let Some(why) = meeting.broken.clone() {
            drop(meeting);
            panic!("the clients' meeting broke: {why}");
        }
        meeting.arrived += 1;
        let generation = meeting.generation;
        if meeting.arrived == self.parties {
            drop(meeting);
            let acted = catch_unwind(AssertUnwindSafe(act));
            let mut meeting = self.lock();
            meeting.arrived = 0;
            meeting.generation += 1;
            if acted.is_err() {
                meeting.broken = Some("the action at a meeting failed".into());
            }
            self.turned.notify_all();
            drop(meeting);
            if let Err(panic) = acted {
                resume_unwind(panic);
            }
            return;
        }
        let deadline = Instant::now() + CLIENT_LIMIT;
        while meeting.generation == generation && meeting.broken.is_none() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                drop(meeting);
                panic!("the other clients never came to the meeting");
            }
            meeting = self
                .turned
                .wait_timeout(meeting, left)
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .0;
        }
        if meeting.generation == generation
            && let Some(why) = meeting.broken.clone()
        {
            drop(meeting);
            panic!("the clients' meeting broke: {why}");
        }
    }

    fn break_off(&self, why: String) {
        self.lock().broken.get_or_insert(why);
        self.turned.notify_all();
    }
}

/// Breaks the meeting when its client's thread fails.
struct BreakOnPanic<'a>(&'a Rendezvous, &'a str);

impl Drop for BreakOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.break_off(format!("client {} failed", self.1));
        }
    }
}
