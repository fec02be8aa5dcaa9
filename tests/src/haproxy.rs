//! HAProxy (Debian's `haproxy`, installed by `.ci/run`) in front of several `maitool serve
//! --mcp-http` hosts, configured as docs/SCALING.md tells operators to: round robin, health
//! checks on `GET /readyz`, and a request whose connection to a host fails sent to another.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running HAProxy, stopped when dropped.
#[derive(Debug)]
pub struct Balancer {
    child: Child,
    /// Where clients connect: `http://127.0.0.1:PORT`.
    pub base: String,
    log: PathBuf,
    stats: PathBuf,
}

/// The `haproxy` program, or `None` after a loud skip when it is not installed. With
/// `MAITOOL_REQUIRE_BALANCER=1` (CI) a missing one is a failure.
pub fn haproxy(test: &str) -> Option<PathBuf> {
    let found = [
        "/usr/sbin/haproxy",
        "/usr/bin/haproxy",
        "/usr/local/sbin/haproxy",
    ]
    .into_iter()
    .map(PathBuf::from)
    .find(|path| path.exists());
    if found.is_none() {
        let message = "no HAProxy: install Debian's `haproxy` (as .ci/run does)";
        if std::env::var("MAITOOL_REQUIRE_BALANCER").as_deref() == Ok("1") {
            panic!("{test}: {message}; MAITOOL_REQUIRE_BALANCER=1 requires it");
        }
        crate::skip::announce(&format!("{test}: {message}"));
    }
    found
}

/// The configuration for `servers` (addresses of hosts), listening on `listen`, with its
/// statistics on the Unix socket `stats`.
pub fn config(listen: SocketAddr, servers: &[SocketAddr], stats: &Path) -> String {
    let mut config = format!(
        "global
    maxconn 4096
    stats socket {}

defaults
    mode http
    timeout connect 2s
    # MCP streams (SSE) stay open as long as their client: no idle cut.
    timeout client 1h
    timeout server 1h
    timeout tunnel 1h
    # A request whose connection to a host fails goes to another: a host that died is not
    # marked down before its health checks fail.
    retries 3
    option redispatch 1
    retry-on conn-failure

frontend mcp
    bind {listen}
    default_backend hosts

backend hosts
    balance roundrobin
    option httpchk GET /readyz
    http-check expect status 200
    default-server inter 1s fall 2 rise 2
",
        stats.display()
    );
    for (n, server) in servers.iter().enumerate() {
        config.push_str(&format!("    server host{n} {server} check\n"));
    }
    config
}

impl Balancer {
    /// Starts `haproxy` on a free loopback port in front of `servers`; its files go to `dir`.
    /// Returns once it accepts connections.
    pub fn start(haproxy: &Path, dir: &Path, servers: &[SocketAddr]) -> Balancer {
        let listen = free_port();
        let config_path = dir.join("haproxy.cfg");
        let stats = dir.join("haproxy.sock");
        std::fs::write(&config_path, config(listen, servers, &stats)).expect("haproxy.cfg written");
        let check = Command::new(haproxy)
            .arg("-c")
            .arg("-f")
            .arg(&config_path)
            .output()
            .expect("haproxy runs");
        assert!(
            check.status.success(),
            "haproxy refuses its configuration: {}",
            String::from_utf8_lossy(&check.stderr)
        );
        let log = dir.join("haproxy.log");
        // -db: in the foreground, logging to stderr.
        let child = Command::new(haproxy)
            .arg("-db")
            .arg("-f")
            .arg(&config_path)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).expect("haproxy log"))
            .spawn()
            .expect("haproxy starts");
        let balancer = Balancer {
            child,
            base: format!("http://{listen}"),
            log,
            stats,
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(listen).is_err() {
            assert!(
                Instant::now() < deadline,
                "haproxy does not listen on {listen}: {}",
                balancer.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        balancer
    }

    /// A counter of `show stat` (e.g. `wredis`, requests sent to another host after their
    /// connection failed), summed over the backend's servers.
    pub fn server_total(&self, counter: &str) -> u64 {
        use std::io::{Read, Write};
        let mut socket =
            std::os::unix::net::UnixStream::connect(&self.stats).expect("haproxy's stats socket");
        socket.write_all(b"show stat\n").expect("show stat sent");
        let mut csv = String::new();
        socket.read_to_string(&mut csv).expect("show stat read");
        let mut lines = csv.lines();
        let header: Vec<&str> = lines
            .next()
            .unwrap_or_default()
            .trim_start_matches("# ")
            .split(',')
            .collect();
        let column = |name: &str| {
            header
                .iter()
                .position(|field| *field == name)
                .unwrap_or_else(|| panic!("no {name} in show stat: {csv}"))
        };
        let (kind, value) = (column("type"), column(counter));
        lines
            .map(|line| line.split(',').collect::<Vec<_>>())
            // type 2: a server.
            .filter(|fields| fields.get(kind) == Some(&"2"))
            .filter_map(|fields| fields.get(value)?.parse::<u64>().ok())
            .sum()
    }

    /// What HAProxy wrote to stderr.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Balancer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A loopback address nobody listens on (bound, then released).
pub fn free_port() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("its address")
}
