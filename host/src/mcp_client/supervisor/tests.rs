use crate::mcp_client::{
    McpConfig, McpServerConfig, McpServerState, McpToolProvider, McpTransport,
};
use crate::provider::ToolProvider;

/// `status` is where the operator reads why a server is down: the line holds the attempt's
/// causes, not only its outermost message.
#[tokio::test]
async fn a_failed_attempt_reports_its_cause_in_status() {
    let mut config = McpConfig {
        enable: true,
        servers: vec![McpServerConfig {
            name: "missing".to_owned(),
            transport: McpTransport::Stdio,
            command: "/nonexistent/mcp-server".to_owned(),
            ..McpServerConfig::default()
        }],
        ..McpConfig::default()
    };
    config.reconnect.enable = false;
    let provider = McpToolProvider::start(config).await.unwrap();
    let status = provider.status().remove(0);
    assert_eq!(status.state, McpServerState::Failed);
    let error = status.last_error.expect("the failure is recorded");
    // ENOENT, the spawn's cause, after the outer message.
    assert!(
        error.starts_with("cannot start command \"/nonexistent/mcp-server\": ")
            && error.ends_with("(os error 2)"),
        "{error}"
    );
    provider.close().await.unwrap();
}
