//! Calls per second through HAProxy to three `maitool serve --mcp-http` hosts on one
//! PostgreSQL database, against the same HAProxy to one of them: one HAProxy process with a
//! frontend for each, configured as docs/SCALING.md says, and the rounds alternating. Each
//! call is a 2026-07-28 `tools/call` of the benchmark's echo runner, from `connections`
//! keep-alive HTTP/1.1 connections at once, one call in flight on each.

use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::plan::Plan;
use crate::report::Report;
use crate::stats::{median, ratio};

use super::SECTION;

/// The hosts behind the balancer.
const HOSTS: usize = 3;

/// Runs the balancer half of the section: `maitool` (built with `http`) and `haproxy`, on the
/// database at `url`.
pub async fn run(
    maitool: &Path,
    echo: &Path,
    haproxy: &Path,
    url: &str,
    plan: &Plan,
    report: &mut Report,
) -> Result<()> {
    let dir = tempfile::Builder::new()
        .prefix("maitool-bench-balancer")
        .tempdir()?;
    let mut hosts = Vec::with_capacity(HOSTS);
    for n in 0..HOSTS {
        hosts.push(start_host(maitool, echo, dir.path(), n, url).await?);
    }
    let addresses: Vec<SocketAddr> = hosts.iter().map(|(_, address)| *address).collect();
    for address in &addresses {
        wait_ready(*address).await?;
    }
    let (one, three) = (free_port()?, free_port()?);
    let config = dir.path().join("haproxy.cfg");
    std::fs::write(&config, haproxy_config(one, three, &addresses))?;
    let mut balancer = Command::new(haproxy)
        .arg("-db")
        .arg("-f")
        .arg(&config)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .with_context(|| format!("cannot start {}", haproxy.display()))?;
    for frontend in [one, three] {
        wait_ready(frontend).await?;
    }

    let window = plan.balancer_window;
    let connections = plan.balancer_connections;
    // Warm both paths: runners started, connections pooled, statements prepared.
    for frontend in [one, three] {
        load(frontend, connections, window / 4).await?;
    }
    let (mut to_one, mut to_three) = (Vec::new(), Vec::new());
    for _ in 0..plan.balancer_rounds {
        to_one.push(load(one, connections, window).await?);
        to_three.push(load(three, connections, window).await?);
    }
    let (one_rate, three_rate) = (median(&to_one), median(&to_three));
    report.add(
        SECTION,
        "balancer_1_host_calls_s",
        &format!("HAProxy to 1 host, {connections} connections"),
        one_rate,
        "calls/s",
    );
    report.add(
        SECTION,
        "balancer_3_hosts_calls_s",
        &format!("HAProxy to 3 hosts, {connections} connections"),
        three_rate,
        "calls/s",
    );
    report.add(
        SECTION,
        "balancer_3_vs_1_calls_s_ratio",
        "calls/s through HAProxy: 3 hosts / 1 host",
        ratio(three_rate, one_rate),
        "×",
    );
    let _ = balancer.kill().await;
    for (mut child, _) in hosts {
        let _ = child.kill().await;
    }
    Ok(())
}

/// Host `n`: `maitool serve --mcp-http 127.0.0.1:0` with the echo runner, on the shared
/// store; its address from the URL it prints.
async fn start_host(
    maitool: &Path,
    echo: &Path,
    dir: &Path,
    n: usize,
    url: &str,
) -> Result<(Child, SocketAddr)> {
    let config = dir.join(format!("host{n}.toml"));
    std::fs::write(
        &config,
        format!(
            "[host]\ndata_dir = \"host{n}-data\"\ncontrol_socket = \"host{n}.sock\"\n\
             enable_builtin = false\n[mcp]\nenable = false\n\
             [store]\nbackend = \"postgres\"\nurl = {url:?}\n\
             [[runners]]\nname = \"echo0\"\nexecutable = {:?}\n",
            echo.display().to_string()
        ),
    )?;
    let mut child = Command::new(maitool)
        .arg("--config")
        .arg(&config)
        .args(["serve", "--mcp-http", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .with_context(|| format!("cannot start {}", maitool.display()))?;
    let stdout = child.stdout.take().context("no stdout")?;
    let mut line = String::new();
    tokio::time::timeout(
        Duration::from_secs(30),
        BufReader::new(stdout).read_line(&mut line),
    )
    .await
    .context("maitool serve printed no URL within 30 s")??;
    let address = line
        .trim()
        .strip_prefix("http://")
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .with_context(|| format!("maitool serve printed {line:?}, not its URL"))?
        .parse()?;
    Ok((child, address))
}

/// Two frontends, one to the first host and one to all: the configuration of docs/SCALING.md.
fn haproxy_config(one: SocketAddr, three: SocketAddr, hosts: &[SocketAddr]) -> String {
    let mut config = format!(
        "global\n    maxconn 4096\n\ndefaults\n    mode http\n    timeout connect 2s\n    \
         timeout client 1h\n    timeout server 1h\n    retries 3\n    option redispatch 1\n    \
         retry-on conn-failure\n\nfrontend one\n    bind {one}\n    default_backend one\n\n\
         frontend three\n    bind {three}\n    default_backend three\n"
    );
    for (name, servers) in [("one", &hosts[..1]), ("three", hosts)] {
        config.push_str(&format!(
            "\nbackend {name}\n    balance roundrobin\n    option httpchk GET /readyz\n    \
             http-check expect status 200\n    default-server inter 1s fall 2 rise 2\n"
        ));
        for (n, server) in servers.iter().enumerate() {
            config.push_str(&format!("    server host{n} {server} check\n"));
        }
    }
    config
}

fn free_port() -> Result<SocketAddr> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?)
}

/// One keep-alive HTTP/1.1 connection to `address`.
async fn connect(address: SocketAddr) -> Result<http1::SendRequest<Full<Bytes>>> {
    let stream = tokio::net::TcpStream::connect(address).await?;
    stream.set_nodelay(true)?;
    let (sender, connection) = http1::handshake(TokioIo::new(stream)).await?;
    tokio::spawn(connection);
    Ok(sender)
}

/// Polls `GET /readyz` at `address` until it answers 200 (at most 60 s).
async fn wait_ready(address: SocketAddr) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let ready = async {
            let mut sender = connect(address).await?;
            let request = hyper::Request::get("/readyz")
                .header("host", address.to_string())
                .body(Full::new(Bytes::new()))?;
            anyhow::Ok(sender.send_request(request).await?.status() == 200)
        };
        if ready.await.unwrap_or(false) {
            return Ok(());
        }
        if Instant::now() > deadline {
            bail!("{address} was not ready within 60 s");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Calls per second through `address` from `connections` connections during `window`.
async fn load(address: SocketAddr, connections: usize, window: Duration) -> Result<f64> {
    let done = Arc::new(AtomicU64::new(0));
    let deadline = Instant::now() + window;
    let mut tasks = Vec::with_capacity(connections);
    for _ in 0..connections {
        let done = done.clone();
        tasks.push(tokio::spawn(async move {
            let mut sender = connect(address).await?;
            let mut id = 0u64;
            while Instant::now() < deadline {
                id += 1;
                call(&mut sender, address, id).await?;
                done.fetch_add(1, Ordering::Relaxed);
            }
            anyhow::Ok(())
        }));
    }
    let started = Instant::now();
    for task in tasks {
        task.await??;
    }
    Ok(done.load(Ordering::Relaxed) as f64 / started.elapsed().as_secs_f64())
}

/// One 2026-07-28 `tools/call` of `echo`; an answer that is not its result is an error.
async fn call(
    sender: &mut http1::SendRequest<Full<Bytes>>,
    address: SocketAddr,
    id: u64,
) -> Result<()> {
    let body = serde_json::json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {
            "name": "echo", "arguments": {"text": "through the balancer"},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "maitool-bench", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {}
            }
        }
    });
    sender.ready().await?;
    let request = hyper::Request::post("/mcp")
        .header("host", address.to_string())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "echo")
        .body(Full::new(Bytes::from(body.to_string())))?;
    let response = sender.send_request(request).await?;
    let status = response.status();
    let answer = response.into_body().collect().await?.to_bytes();
    let text = String::from_utf8_lossy(&answer);
    if status != 200 || !text.contains("through the balancer") || text.contains("\"isError\":true")
    {
        bail!("the call through {address} failed ({status}): {text}");
    }
    Ok(())
}
