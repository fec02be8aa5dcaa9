//! Failed connections: the error says why, with its cause kept. Without the `http` feature, a
//! server reached by URL fails to connect, with the reason, and nothing is attempted on the
//! network. (With the feature, the workspace tests connect to real servers over both
//! transports.)

use std::sync::Arc;

#[cfg(not(feature = "http"))]
use tokio::net::TcpListener;
use tokio::sync::Notify;

use super::{ConnectError, connect};
use crate::mcp_client::handler::McpClientHandler;
use crate::mcp_client::{McpClientConfig, McpServerConfig, McpTransport};

fn handler() -> McpClientHandler {
    McpClientHandler::new(
        Arc::from("remote"),
        Arc::new(McpClientConfig::default()),
        Arc::new(Notify::new()),
    )
}

#[tokio::test]
async fn a_command_that_does_not_start_keeps_the_os_error_as_its_source() {
    let server = McpServerConfig {
        name: "missing".to_owned(),
        transport: McpTransport::Stdio,
        command: "/nonexistent/mcp-server".to_owned(),
        ..McpServerConfig::default()
    };
    let err = connect(&server, handler())
        .await
        .expect_err("no such command");
    assert!(matches!(err, ConnectError::Spawn { .. }), "{err:?}");
    let io = crate::error_text::io_source(&err);
    assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
    assert_eq!(
        crate::error_text::chain(&err),
        format!("cannot start command \"/nonexistent/mcp-server\": {io}")
    );
}

#[cfg(not(feature = "http"))]
async fn refusal(transport: McpTransport, url: String) -> String {
    let server = McpServerConfig {
        name: "remote".to_owned(),
        transport,
        url,
        ..McpServerConfig::default()
    };
    connect(&server, handler())
        .await
        .expect_err("a URL server cannot connect without the http feature")
        .to_string()
}

#[cfg(not(feature = "http"))]
#[tokio::test]
async fn a_url_server_is_refused_with_the_missing_feature_named_and_no_connection_made() {
    // A listener that would see any attempt: it must see none.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    for (transport, name) in [
        (McpTransport::StreamableHttp, "streamable_http"),
        (McpTransport::Sse, "sse"),
    ] {
        let err = refusal(transport, url.clone()).await;
        assert_eq!(
            err,
            format!(
                "the {name} transport needs a maitool built with the `http` feature; this one speaks MCP over stdio only"
            )
        );
    }
    let attempt = tokio::time::timeout(std::time::Duration::from_millis(50), listener.accept());
    assert!(attempt.await.is_err(), "no connection was attempted");
}
