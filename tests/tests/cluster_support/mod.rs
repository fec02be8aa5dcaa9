//! Hosts for the cluster tests: `maitool serve --mcp-http` processes, each in a folder of its
//! own, on one PostgreSQL database or the embedded store, and plain-socket HTTP helpers.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use maitool_e2e::cli::Maitool;
use maitool_e2e::postgres::TestDatabase;
use maitool_e2e::workspace_bin;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value;

/// Heartbeat and staleness of every host here, short so that the tests wait little: a row
/// unwritten for 2 s is stale, for 6 s forgotten.
pub const CLUSTER: &str =
    "[cluster]\nheartbeat_ms = 200\nstale_after_ms = 2000\nforget_after_ms = 6000\n";
/// Generous: the machine is shared and each step spawns processes.
pub const LIMIT: Duration = Duration::from_secs(60);

/// One `maitool serve --mcp-http` in a folder of its own (configuration, data,
/// control socket).
pub struct Node {
    pub dir: tempfile::TempDir,
    pub maitool: Maitool,
    pub child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// The MCP URL it printed.
    pub url: String,
}

/// How a node's configuration is made.
#[derive(Default)]
pub struct Setup<'a> {
    /// The PostgreSQL store, or the embedded one.
    pub database: Option<&'a TestDatabase>,
    /// An MCP server that connects only once the file `GO` exists in the node's folder.
    pub gated: bool,
    /// More configuration, appended as is.
    pub extra: &'a str,
    /// The address to listen on; `127.0.0.1:0` when empty.
    pub listen: &'a str,
}

impl Node {
    pub fn start(setup: Setup<'_>) -> Node {
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
        config.push_str(setup.extra);
        let config_path = dir.path().join("maitool.toml");
        std::fs::write(&config_path, config).unwrap();
        let maitool = Maitool::new(&config_path, &dir.path().join("control.sock"));
        let stderr = std::fs::File::create(dir.path().join("serve.stderr")).unwrap();
        let mut child = maitool
            .command()
            .args([
                "serve",
                "--mcp-http",
                if setup.listen.is_empty() {
                    "127.0.0.1:0"
                } else {
                    setup.listen
                },
            ])
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

    pub fn stderr(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("serve.stderr")).unwrap_or_default()
    }

    /// Lets the gated MCP server come up.
    pub fn open_gate(&self) {
        std::fs::write(self.dir.path().join("GO"), "").unwrap();
    }

    /// `status --json`, answered by this node's serve.
    pub fn status(&self) -> Value {
        let status = self.maitool.json(&["status", "--json"]);
        assert_eq!(status["answered_by"], "serve", "{status}");
        status
    }

    /// The cluster as this node's `status --json` shows it: host id → row.
    pub fn cluster(&self) -> Vec<Value> {
        let status = self.status();
        let cluster = &status["cluster"];
        assert!(cluster.get("error").is_none(), "{cluster}");
        cluster["hosts"].as_array().cloned().unwrap_or_default()
    }

    pub fn signal(&self, signal: Signal) {
        kill(Pid::from_raw(self.child.id() as i32), signal).unwrap();
    }

    /// SIGTERM, and the exit status within 20 s.
    pub fn stop(mut self) -> std::process::ExitStatus {
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
pub fn poll(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + LIMIT;
    while !check() {
        assert!(Instant::now() < deadline, "{what}: not within {LIMIT:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// `GET base+path` over a plain socket: (status code, body).
pub fn get(base: &str, path: &str) -> (u16, String) {
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

/// `POST base/mcp` with `body` over HTTP/1.0 (the whole answer, then the connection closes),
/// as a client of the 2025-06-18 revision: (status, `Mcp-Session-Id`, the JSON-RPC message of
/// the answer, from its JSON body or its SSE `data:` line).
pub fn post_mcp(base: &str, body: &Value, session: Option<&str>) -> (u16, Option<String>, Value) {
    let authority = base.trim_start_matches("http://");
    let mut stream = TcpStream::connect(authority).expect("the front accepts");
    stream.set_read_timeout(Some(LIMIT)).unwrap();
    let body = body.to_string();
    let mut head = format!(
        "POST /mcp HTTP/1.0\r\nHost: {authority}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(session) = session {
        head.push_str(&format!(
            "Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-06-18\r\n"
        ));
    }
    write!(stream, "{head}\r\n{body}").unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    assert!(
        !body.contains("retry:"),
        "a priming event offers a resumption no host can serve: {response}"
    );
    let code = head
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {response:?}"));
    let session = head.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.eq_ignore_ascii_case("mcp-session-id")
            .then(|| value.trim().to_owned())
    });
    // SSE: the first `data:` line with a message (a priming event's is empty).
    let message = body
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(str::trim)
        .find(|data| !data.is_empty())
        .or(Some(body.trim()).filter(|body| body.starts_with('{')))
        .map(|json| serde_json::from_str(json).unwrap_or_else(|_| panic!("{response}")))
        .unwrap_or(Value::Null);
    (code, session, message)
}
