//! Several `maitool serve` processes on one PostgreSQL store list themselves in its `hosts`
//! table, and `maitool status` of any of them shows them all: ready or starting, stale once
//! killed, gone once stopped cleanly, forgotten later. A balancer's probes (`GET /readyz`,
//! `maitool status --ready`) say ready only once a client's first tool listing would be
//! complete. Real processes, a real database (`.ci/start-postgres.sh`), a real MCP server that
//! comes up only when the test says so.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use maitool_e2e::cli::Maitool;
use maitool_e2e::postgres::{TestDatabase, fresh_database};
use maitool_e2e::workspace_bin;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value;

/// Heartbeat and staleness of every host here, short so that the tests wait little: a row
/// unwritten for 2 s is stale, for 6 s forgotten.
const CLUSTER: &str =
    "[cluster]\nheartbeat_ms = 200\nstale_after_ms = 2000\nforget_after_ms = 6000\n";
const STALE_AFTER: Duration = Duration::from_millis(2000);
const HEARTBEAT: Duration = Duration::from_millis(200);
/// Generous: the machine is shared and each step spawns processes.
const LIMIT: Duration = Duration::from_secs(60);

/// One `maitool serve --mcp-http 127.0.0.1:0` in a folder of its own (configuration, data,
/// control socket).
struct Node {
    dir: tempfile::TempDir,
    maitool: Maitool,
    child: Child,
    /// `http://127.0.0.1:PORT`.
    base: String,
    /// The MCP URL it printed.
    url: String,
}

/// How a node's configuration is made.
struct Setup<'a> {
    /// The PostgreSQL store, or the embedded one.
    database: Option<&'a TestDatabase>,
    /// An MCP server that connects only once the file `GO` exists in the node's folder.
    gated: bool,
}

impl Node {
    fn start(setup: Setup<'_>) -> Node {
        let dir = tempfile::tempdir().expect("temp dir");
        // A listing wait far past the test: only the gated server's coming up opens the gate.
        let mut config = "[host]\nlisting_wait_ms = 600000\n".to_owned();
        if let Some(database) = setup.database {
            config.push_str(&format!(
                "\n[store]\nbackend = \"postgres\"\nurl = \"{}\"\nmax_connections = 4\n\n{CLUSTER}",
                database.url
            ));
        }
        if setup.gated {
            let go = dir.path().join("GO");
            config.push_str(&format!(
                "\n[mcp]\nenable = true\nconnect_timeout_seconds = 600\n\n[[mcp.servers]]\nname = \"gated\"\ntransport = \"stdio\"\ncommand = \"sh\"\nargs = [\"-c\", \"while [ ! -e '{}' ]; do sleep 0.05; done; exec '{}'\"]\n",
                go.display(),
                workspace_bin("maitool-example-mcp-server").display()
            ));
        }
        let config_path = dir.path().join("maitool.toml");
        std::fs::write(&config_path, config).unwrap();
        let maitool = Maitool::new(&config_path, &dir.path().join("control.sock"));
        let stderr = std::fs::File::create(dir.path().join("serve.stderr")).unwrap();
        let mut child = maitool
            .command()
            .args(["serve", "--mcp-http", "127.0.0.1:0"])
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("maitool serve starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let url = rx.recv_timeout(LIMIT).unwrap_or_default().trim().to_owned();
        let node = Node {
            base: url.trim_end_matches("/mcp").to_owned(),
            url,
            maitool,
            child,
            dir,
        };
        assert!(
            node.url.starts_with("http://127.0.0.1:") && node.url.ends_with("/mcp"),
            "serve printed no URL ({:?}); stderr:\n{}",
            node.url,
            node.stderr()
        );
        // The control socket is bound before the URL is printed; this waits until it answers.
        poll("the control socket answers", || {
            let (_, out, _) = node.maitool.run(&["status", "--ready"]);
            !out.is_empty() && !out.contains("no maitool serve is running")
        });
        node
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("serve.stderr")).unwrap_or_default()
    }

    /// Lets the gated MCP server come up.
    fn open_gate(&self) {
        std::fs::write(self.dir.path().join("GO"), "").unwrap();
    }

    /// `status --json`, answered by this node's serve.
    fn status(&self) -> Value {
        let status = self.maitool.json(&["status", "--json"]);
        assert_eq!(status["answered_by"], "serve", "{status}");
        status
    }

    /// The cluster as this node's `status --json` shows it: host id → row.
    fn cluster(&self) -> Vec<Value> {
        let status = self.status();
        let cluster = &status["cluster"];
        assert!(cluster.get("error").is_none(), "{cluster}");
        cluster["hosts"].as_array().cloned().unwrap_or_default()
    }

    fn signal(&self, signal: Signal) {
        kill(Pid::from_raw(self.child.id() as i32), signal).unwrap();
    }

    /// SIGTERM, and the exit status within 20 s.
    fn stop(mut self) -> std::process::ExitStatus {
        self.signal(Signal::SIGTERM);
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "serve did not stop on SIGTERM");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Polls `check` every 100 ms until it holds; panics after [`LIMIT`].
fn poll(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + LIMIT;
    while !check() {
        assert!(Instant::now() < deadline, "{what}: not within {LIMIT:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// `GET base+path` over a plain socket: (status code, body).
fn get(base: &str, path: &str) -> (u16, String) {
    let authority = base.trim_start_matches("http://");
    let mut stream = TcpStream::connect(authority).expect("the front accepts");
    stream.set_read_timeout(Some(LIMIT)).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let code = response
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {response:?}"));
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_owned())
        .unwrap_or_default();
    (code, body)
}

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
    });
    let b = Node::start(Setup {
        database: Some(&database),
        gated: true,
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
