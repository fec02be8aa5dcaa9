//! Helpers of the security tests: a process's argv and launch environment from `/proc`, raw
//! frames on the runner socket, the example MCP server on HTTP, and a real HTTP endpoint that
//! answers everything with 401.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use maitool_protocol::wire::methods::{HelloPayload, HelloResponsePayload, names};
use maitool_protocol::wire::{Envelope, decode_header, decode_payload, encode_envelope};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, Command};

/// Upper bound of any wait here; a hang fails instead of blocking the suite.
pub const BOUND: Duration = Duration::from_secs(30);

/// The variable naming the descriptor the host hands the session token over in.
pub const TOKEN_FD_VAR: &str = "MAITOOL_SESSION_TOKEN_FD";

/// The argv of a live process.
pub fn cmdline(pid: u32) -> Vec<String> {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).expect("read cmdline");
    raw.split(|b| *b == 0)
        .filter(|arg| !arg.is_empty())
        .map(|arg| String::from_utf8_lossy(arg).into_owned())
        .collect()
}

/// The environment a process was started with. `/proc/PID/environ` shows the block the
/// kernel set up at exec, which removing a variable later in the process does not change.
pub fn launch_env(pid: u32) -> Vec<(String, String)> {
    let raw = std::fs::read(format!("/proc/{pid}/environ")).expect("read environ");
    raw.split(|b| *b == 0)
        .filter_map(|entry| {
            let entry = String::from_utf8_lossy(entry);
            let (key, value) = entry.split_once('=')?;
            Some((key.to_owned(), value.to_owned()))
        })
        .collect()
}

/// The token `maitool-example-misbehaving` recorded in `file` (`MISBEHAVE_TOKEN_FILE`) once
/// it differs from `previous`: the runner read it from its launch pipe.
pub fn recorded_token(file: &Path, previous: &str) -> String {
    let deadline = std::time::Instant::now() + BOUND;
    loop {
        let token = std::fs::read_to_string(file).unwrap_or_default();
        if !token.is_empty() && token != previous {
            assert_eq!(token.len(), 64, "32 random bytes in hex: {token}");
            assert!(token.bytes().all(|b| b.is_ascii_hexdigit()), "{token}");
            return token;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no token recorded in {}",
            file.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Neither `/proc/PID/cmdline` nor `/proc/PID/environ` of a live runner holds `token`.
pub fn assert_token_absent(pid: u32, token: &str) {
    for file in ["cmdline", "environ"] {
        let raw = std::fs::read(format!("/proc/{pid}/{file}")).expect("read /proc");
        assert!(
            !raw.windows(token.len())
                .any(|window| window == token.as_bytes()),
            "the token is in /proc/{pid}/{file}"
        );
    }
}

/// Prefixes a frame body with its 4-byte big-endian length.
pub fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = (body.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(body);
    out
}

/// Reads one frame body.
pub fn read_frame(stream: &mut UnixStream) -> std::io::Result<Vec<u8>> {
    let mut len = [0u8; 4];
    stream.read_exact(&mut len)?;
    let mut body = vec![0u8; u32::from_be_bytes(len) as usize];
    stream.read_exact(&mut body)?;
    Ok(body)
}

/// Connects to the runner socket, says `runner.hello` with `token`, and returns the host's
/// answer (blocking; run it on a blocking thread).
pub fn present_token(socket: &Path, token: &str) -> HelloResponsePayload {
    let mut stream = UnixStream::connect(socket).expect("connect to the runner socket");
    stream.set_read_timeout(Some(BOUND)).unwrap();
    let hello = HelloPayload {
        runner_id: "security-test".into(),
        sdk_version: "1.0.0".into(),
        session_token: token.into(),
        protocol_versions: vec!["1.0.0".into()],
        pid: std::process::id(),
        reads_context: false,
        ..Default::default()
    };
    let body = encode_envelope(&Envelope::request(1, names::HELLO, "", 10_000, hello)).unwrap();
    stream.write_all(&frame(&body)).unwrap();
    let answer = read_frame(&mut stream).expect("the host answers the hello");
    let header = decode_header(&answer).unwrap();
    assert!(header.error.is_none(), "{:?}", header.error);
    decode_payload(&answer).unwrap()
}

/// Our example MCP server on Streamable HTTP; killed when dropped.
pub struct ExampleHttpServer {
    _child: Child,
    /// Its address.
    pub addr: SocketAddr,
}

impl ExampleHttpServer {
    /// Starts it on a free loopback port.
    pub async fn start(dir: &Path) -> Self {
        let addr_file = dir.join("example-mcp-addr");
        let child = Command::new(maitool_e2e::workspace_bin("maitool-example-mcp-server"))
            .args(["--http", "127.0.0.1:0", "--addr-file"])
            .arg(&addr_file)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn the example MCP server");
        let read = async {
            loop {
                if let Ok(text) = std::fs::read_to_string(&addr_file)
                    && let Ok(addr) = text.trim().parse()
                {
                    return addr;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        };
        let addr = tokio::time::timeout(BOUND, read)
            .await
            .expect("the example MCP server reports its address");
        Self {
            _child: child,
            addr,
        }
    }

    /// Its MCP endpoint.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }
}

/// An HTTP endpoint that refuses every request with 401, counting the requests that carried
/// every expected header line (so a test knows the secrets really were sent).
pub struct Unauthorized {
    /// Its address.
    pub addr: SocketAddr,
    /// Requests that presented every expected header.
    pub with_secrets: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Unauthorized {
    /// Listens on a free loopback port, expecting header lines like
    /// `authorization: bearer TOKEN` (compared case-insensitively).
    pub async fn start(expected_headers: &[String]) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let with_secrets = Arc::new(AtomicUsize::new(0));
        let counter = with_secrets.clone();
        let needles: Arc<Vec<String>> = Arc::new(
            expected_headers
                .iter()
                .map(|h| format!("\r\n{}\r\n", h.to_lowercase()))
                .collect(),
        );
        let task = tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let counter = counter.clone();
                let needles = needles.clone();
                tokio::spawn(async move {
                    let head = read_head(&mut stream).await.to_lowercase();
                    if needles.iter().all(|needle| head.contains(needle)) {
                        counter.fetch_add(1, Ordering::SeqCst);
                    }
                    let _ = stream
                        .write_all(
                            b"HTTP/1.1 401 Unauthorized\r\n\
                              www-authenticate: Bearer error=\"invalid_token\"\r\n\
                              content-length: 0\r\nconnection: close\r\n\r\n",
                        )
                        .await;
                    let _ = stream.shutdown().await;
                });
            }
        });
        Self {
            addr,
            with_secrets,
            task,
        }
    }

    /// Its would-be MCP endpoint.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }
}

impl Drop for Unauthorized {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The request line and headers of one HTTP request (the body is not needed for a 401).
async fn read_head(stream: &mut tokio::net::TcpStream) -> String {
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 64 * 1024 {
        match tokio::time::timeout(BOUND, stream.read(&mut buf)).await {
            Ok(Ok(n)) if n > 0 => head.extend_from_slice(&buf[..n]),
            _ => break,
        }
    }
    String::from_utf8_lossy(&head).into_owned()
}

/// A loopback port nothing listens on (bound, then released).
pub fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}
