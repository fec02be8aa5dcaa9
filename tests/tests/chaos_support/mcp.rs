//! The two MCP servers of the chaos test: the example server over stdio (the host owns the
//! process; the test SIGKILLs it and the host reconnects) and over Streamable HTTP on loopback
//! (the test owns the process and restarts it on the same address).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use maitool_host::mcp_client::{McpConfig, McpServerConfig};
use tokio::process::{Child, Command};

use super::MCP_TIMEOUT;

/// The example server on HTTP, owned by the test.
#[derive(Debug)]
pub struct HttpServer {
    child: Child,
    addr: SocketAddr,
    dir: PathBuf,
}

impl HttpServer {
    /// Starts the server on `addr` (`127.0.0.1:0` picks a port) and waits for it to listen.
    pub async fn start(addr: &str, dir: &Path) -> HttpServer {
        let addr_file = dir.join("web-addr");
        let _ = std::fs::remove_file(&addr_file);
        let child = Command::new(maitool_e2e::workspace_bin("maitool-example-mcp-server"))
            .args(["--http", addr, "--addr-file"])
            .arg(&addr_file)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn the example MCP server over HTTP");
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        let addr = loop {
            // The file is written once the listener is bound.
            if let Some(addr) = std::fs::read_to_string(&addr_file)
                .ok()
                .and_then(|text| text.trim().parse().ok())
            {
                break addr;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the HTTP MCP server did not report its address within 30 s"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        HttpServer {
            child,
            addr,
            dir: dir.to_owned(),
        }
    }

    /// The endpoint URL.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// Its process id.
    pub fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    /// SIGKILLs the server and waits for it.
    pub async fn kill(&mut self) {
        let _ = self.child.kill().await;
    }

    /// Kills the server, waits `pause`, and starts a new one on the same address.
    pub async fn restart(&mut self, pause: Duration) {
        self.kill().await;
        tokio::time::sleep(pause).await;
        *self = HttpServer::start(&self.addr.to_string(), &self.dir).await;
    }
}

/// The provider config: `mcp_*` tools over stdio, `web_*` tools over HTTP at `web_url`, both
/// with a 2 s call limit, and fast reconnects and health checks.
pub fn config(web_url: &str) -> McpConfig {
    let bin = maitool_e2e::workspace_bin("maitool-example-mcp-server");
    let mut stdio = McpServerConfig::stdio("mcp", bin.to_string_lossy(), Vec::<String>::new());
    stdio.tool_prefix = "mcp_".to_owned();
    stdio.env.insert("RUST_LOG".to_owned(), "warn".to_owned());
    stdio.read_timeout_seconds = MCP_TIMEOUT.as_secs_f64();
    let mut web = McpServerConfig::streamable_http("web", web_url);
    web.tool_prefix = "web_".to_owned();
    web.read_timeout_seconds = MCP_TIMEOUT.as_secs_f64();
    web.http_timeout_seconds = 2.0;
    let mut config = McpConfig {
        enable: true,
        servers: vec![stdio, web],
        ..McpConfig::default()
    };
    config.reconnect.initial_delay_seconds = 0.2;
    config.reconnect.max_delay_seconds = 1.0;
    config.health_check_interval_seconds = 0.5;
    config
}
