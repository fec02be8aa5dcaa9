//! MCP over Streamable HTTP, against our example server started with `--http` and against
//! server-everything's `streamableHttp` mode: calls in both eras, configured headers and
//! bearer token on the wire, a server that dies (noticed by the health check) and comes
//! back, TLS for https URLs, and the legacy SSE transport against server-everything.

mod mcp_support;

use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use maitool_host::ToolProvider;
use maitool_host::mcp_client::{
    McpAuthorizationMode, McpProtocol, McpServerConfig, McpServerState, McpTransport,
};
use maitool_protocol::ContentType;
use mcp_support::*;
use serde_json::json;
use tokio::process::{Child, Command};

/// Our example server on HTTP; killed when dropped.
struct HttpServer {
    child: Child,
    addr: SocketAddr,
}

impl HttpServer {
    async fn start(addr: &str, dir: &Path) -> Self {
        let addr_file = dir.join(format!("addr-{}", addr.replace([':', '.'], "_")));
        let _ = std::fs::remove_file(&addr_file);
        let child = Command::new(maitool_e2e::workspace_bin("maitool-example-mcp-server"))
            .args(["--http", addr, "--addr-file"])
            .arg(&addr_file)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn the example server");
        bounded("HTTP server address", async {
            while !addr_file.exists() {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await;
        let addr = std::fs::read_to_string(&addr_file)
            .unwrap()
            .parse()
            .unwrap();
        Self { child, addr }
    }

    fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    async fn kill(&mut self) {
        self.child.kill().await.unwrap();
    }
}

fn http_server_config(name: &str, url: &str) -> McpServerConfig {
    McpServerConfig::streamable_http(name, url)
}

#[tokio::test]
async fn calls_over_http_in_both_eras_carry_headers_and_the_bearer_token() {
    maitool_e2e::init_tracing();
    let dir = tempfile::tempdir().unwrap();
    let server = HttpServer::start("127.0.0.1:0", dir.path()).await;

    let mut modern = http_server_config("modern", &server.url());
    modern.authorization.mode = McpAuthorizationMode::Bearer;
    modern.authorization.bearer_token = "t0ken".to_owned();
    modern
        .headers
        .insert("X-Maitool-Test".to_owned(), "modern".to_owned());
    modern.idle_timeout_seconds = Some(0.6);
    let mut legacy = http_server_config("legacy", &server.url());
    legacy.protocol = McpProtocol::Legacy;
    legacy.tool_prefix = "legacy_".to_owned();
    legacy
        .headers
        .insert("X-Maitool-Test".to_owned(), "legacy".to_owned());
    let provider = start(config(vec![modern, legacy])).await;

    let modern = status_of(&provider, "modern");
    assert_eq!(modern.state, McpServerState::Connected, "{modern:?}");
    assert_eq!(modern.transport, McpTransport::StreamableHttp);
    assert_eq!(modern.protocol_version.as_deref(), Some("2026-07-28"));
    assert_eq!(modern.pid, None);
    assert_eq!(modern.tool_count, 10);
    let legacy = status_of(&provider, "legacy");
    assert_eq!(legacy.protocol_version.as_deref(), Some("2025-11-25"));

    let headers = invoke(&provider, "request_headers", json!({})).await;
    let headers = headers.structured_content.expect("headers");
    assert_eq!(headers["authorization"], "Bearer t0ken");
    assert_eq!(headers["x-maitool-test"], "modern");
    let headers = invoke(&provider, "legacy_request_headers", json!({})).await;
    let headers = headers.structured_content.expect("headers");
    assert!(headers.get("authorization").is_none(), "{headers}");
    assert_eq!(headers["x-maitool-test"], "legacy");

    for prefix in ["", "legacy_"] {
        let image = invoke(&provider, &format!("{prefix}tiny_image"), json!({})).await;
        assert_eq!(image.content_items[1].content_type, ContentType::Image);
        assert!(image.content_items[1].data.0.starts_with(b"\x89PNG"));
        let weather = invoke(
            &provider,
            &format!("{prefix}weather_report"),
            json!({"city": "Oslo"}),
        )
        .await;
        assert_eq!(weather.structured_content.unwrap()["city"], "Oslo");
    }

    // A timeout over HTTP still cancels the call on the server.
    let slow = invoke(&provider, "slow", json!({"ms": 20_000, "steps": 1})).await;
    assert_eq!(slow.metadata["error_kind"], "timeout", "{slow:?}");
    bounded("cancellation seen over HTTP", async {
        loop {
            let stats = invoke(&provider, "slow_stats", json!({})).await;
            if stats.structured_content.unwrap()["cancelled"] == 1 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    provider.close().await.unwrap();
}

#[tokio::test]
async fn a_dead_http_server_fails_its_health_check_and_is_reconnected() {
    maitool_e2e::init_tracing();
    let dir = tempfile::tempdir().unwrap();
    let mut server = HttpServer::start("127.0.0.1:0", dir.path()).await;
    let addr = server.addr.to_string();
    let mut remote = http_server_config("remote", &server.url());
    remote.http_timeout_seconds = 2.0;
    let mut config = config(vec![remote]);
    config.health_check_interval_seconds = 0.3;
    let provider = start(config).await;
    assert_eq!(provider.tool_specs().len(), 10);

    server.kill().await;
    wait_until("tools withdrawn", || provider.tool_specs().is_empty()).await;
    let down = status_of(&provider, "remote");
    assert!(
        matches!(down.state, McpServerState::Reconnecting),
        "{down:?}"
    );
    assert!(down.last_error.is_some());

    // Same address again.
    let _server = HttpServer::start(&addr, dir.path()).await;
    wait_until("reconnected", || {
        status_of(&provider, "remote").state == McpServerState::Connected
    })
    .await;
    let back = status_of(&provider, "remote");
    assert_eq!(back.reconnect_count, 1);
    assert_eq!(provider.tool_specs().len(), 10);
    let echo = invoke(&provider, "echo", json!({"text": "over http again"})).await;
    assert_eq!(echo.content, "over http again");
    provider.close().await.unwrap();
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[tokio::test]
async fn a_legacy_typescript_http_server_is_reached_with_auto() {
    maitool_e2e::init_tracing();
    let Some(script) = everything_script() else {
        return;
    };
    let port = free_port();
    let _server = Command::new("node")
        .arg(&script)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn server-everything");
    let url = format!("http://127.0.0.1:{port}/mcp");
    bounded("server-everything listening", async {
        while tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err()
        {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;

    let provider = start(config(vec![http_server_config("everything", &url)])).await;
    let status = status_of(&provider, "everything");
    assert_eq!(status.state, McpServerState::Connected, "{status:?}");
    assert_eq!(status.protocol_version.as_deref(), Some("2025-11-25"));
    let echo = invoke(&provider, "echo", json!({"message": "http"})).await;
    assert_eq!(echo.content, "Echo: http");
    let weather = invoke(
        &provider,
        "get-structured-content",
        json!({"location": "Chicago"}),
    )
    .await;
    assert!(weather.structured_content.unwrap()["temperature"].is_number());
    provider.close().await.unwrap();
}

#[tokio::test]
async fn the_legacy_sse_transport_reaches_a_typescript_sse_server() {
    maitool_e2e::init_tracing();
    let Some(script) = everything_script() else {
        return;
    };
    let port = free_port();
    let mut server = spawn_everything_sse(&script, port).await;
    let mut sse = http_server_config("sse", &format!("http://127.0.0.1:{port}/sse"));
    sse.transport = McpTransport::Sse;
    sse.idle_timeout_seconds = Some(1.0);
    // Our streamable HTTP server does not speak SSE: a clear error, the other unaffected.
    let dir = tempfile::tempdir().unwrap();
    let streamable = HttpServer::start("127.0.0.1:0", dir.path()).await;
    let mut wrong = http_server_config("wrong", &streamable.url());
    wrong.transport = McpTransport::Sse;
    let provider = start(config(vec![sse, wrong])).await;

    let status = status_of(&provider, "sse");
    assert_eq!(status.state, McpServerState::Connected, "{status:?}");
    assert_eq!(status.transport, McpTransport::Sse);
    assert_eq!(status.protocol_version.as_deref(), Some("2025-11-25"));
    let wrong = status_of(&provider, "wrong");
    assert_eq!(wrong.state, McpServerState::Failed);
    let error = wrong.last_error.unwrap();
    assert!(
        error.starts_with("GET http://") && error.contains("answered HTTP 4"),
        "{error}"
    );

    let echo = invoke(&provider, "echo", json!({"message": "over sse"})).await;
    assert_eq!(echo.content, "Echo: over sse");
    let image = invoke(&provider, "get-tiny-image", json!({})).await;
    assert!(
        image
            .content_items
            .iter()
            .any(|item| item.content_type == ContentType::Image
                && item.data.0.starts_with(b"\x89PNG"))
    );
    // Cancellation is a POSTed notification; the session survives it.
    let slow = invoke(
        &provider,
        "trigger-long-running-operation",
        json!({"duration": 5, "steps": 1}),
    )
    .await;
    assert_eq!(slow.metadata["error_kind"], "timeout", "{slow:?}");
    let echo = invoke(&provider, "echo", json!({"message": "still"})).await;
    assert_eq!(echo.content, "Echo: still");

    // The event stream ending is a dead server: withdrawn, then back on restart.
    server.kill().await.unwrap();
    wait_until("sse tools withdrawn", || provider.tool_specs().is_empty()).await;
    let _server = spawn_everything_sse(&script, port).await;
    wait_until("sse reconnected", || {
        status_of(&provider, "sse").reconnect_count == 1
    })
    .await;
    let echo = invoke(&provider, "echo", json!({"message": "again"})).await;
    assert_eq!(echo.content, "Echo: again");
    provider.close().await.unwrap();
}

async fn spawn_everything_sse(script: &Path, port: u16) -> Child {
    let child = Command::new("node")
        .arg(script)
        .arg("sse")
        .env("PORT", port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn server-everything");
    bounded("server-everything listening", async {
        while tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err()
        {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    child
}

#[tokio::test]
async fn https_urls_are_spoken_with_tls() {
    maitool_e2e::init_tracing();
    let dir = tempfile::tempdir().unwrap();
    // A plain HTTP server behind an https URL: the client must attempt a TLS handshake
    // (and fail it), not reject the scheme.
    let server = HttpServer::start("127.0.0.1:0", dir.path()).await;
    let url = format!("https://{}/mcp", server.addr);
    let mut config = config(vec![http_server_config("tls", &url)]);
    config.connect_timeout_seconds = Some(10.0);
    let provider = start(config).await;
    let status = status_of(&provider, "tls");
    assert_eq!(status.state, McpServerState::Failed);
    let error = status.last_error.unwrap().to_ascii_lowercase();
    assert!(error.contains("ssl") || error.contains("tls"), "{error}");
    assert!(!error.contains("scheme"), "{error}");
    provider.close().await.unwrap();
}
