use std::path::Path;

use super::*;

fn parse(text: &str) -> Result<Vec<McpServerConfig>, ClaudeDesktopError> {
    parse_claude_desktop_config(text, Path::new("claude_desktop_config.json"))
}

#[test]
fn stdio_remote_and_typed_entries_keep_file_order() {
    let servers = parse(
        r#"{
  "globalShortcut": "Ctrl+Space",
  "mcpServers": {
    "time": {"command": "uvx", "args": ["mcp-server-time"], "env": {"TZ": "UTC", "DEBUG": 1}},
    "remote": {"url": "https://h/mcp", "headers": {"X-Key": "k"}},
    "legacy": {"type": "sse", "url": "http://h/sse"},
    "explicit": {"type": "streamable-http", "url": "http://h/mcp", "autoApprove": ["x"]},
    "off": {"command": "x", "disabled": true, "cwd": "/srv"}
  }
}"#,
    )
    .unwrap();
    let names: Vec<&str> = servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["time", "remote", "legacy", "explicit", "off"]);

    assert_eq!(servers[0].transport, McpTransport::Stdio);
    assert_eq!(servers[0].command, "uvx");
    assert_eq!(servers[0].args, ["mcp-server-time"]);
    assert_eq!(servers[0].env["TZ"], "UTC");
    assert_eq!(servers[0].env["DEBUG"], "1");
    assert!(servers[0].enabled);

    assert_eq!(servers[1].transport, McpTransport::StreamableHttp);
    assert_eq!(servers[1].url, "https://h/mcp");
    assert_eq!(servers[1].headers["X-Key"], "k");
    assert_eq!(servers[2].transport, McpTransport::Sse);
    assert_eq!(servers[3].transport, McpTransport::StreamableHttp);
    assert!(!servers[4].enabled);
    assert_eq!(servers[4].cwd.as_deref(), Some(Path::new("/srv")));
}

#[test]
fn bad_files_report_the_file_and_the_entry() {
    let err = parse(r#"{"mcpServers": {"x": {"command": 5}}}"#)
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "invalid Claude Desktop config claude_desktop_config.json: mcpServers.\"x\": `command` must be a string, got 5"
    );

    let err = parse(r#"{"mcpServers": {"x": {"type": "websocket"}}}"#)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(
            "`type` must be \"stdio\", \"http\", \"streamable-http\" or \"sse\", got \"websocket\""
        ),
        "{err}"
    );

    let err = parse(r#"{"servers": {}}"#).unwrap_err().to_string();
    assert!(err.ends_with("no top-level `mcpServers` object"), "{err}");

    let err = parse("{not json").unwrap_err().to_string();
    assert!(err.contains("line 1"), "{err}");

    let err = parse(r#"{"mcpServers": {"x": {"args": ["a", 1]}}}"#)
        .unwrap_err()
        .to_string();
    assert!(err.ends_with("`args[1]` must be a string, got 1"), "{err}");
}

#[test]
fn a_missing_file_is_a_read_error() {
    let err = load_claude_desktop_config(Path::new("/nonexistent/claude.json")).unwrap_err();
    assert!(matches!(err, ClaudeDesktopError::Read { .. }), "{err:?}");
    assert!(
        err.to_string()
            .starts_with("cannot read Claude Desktop config /nonexistent/claude.json")
    );
    // The OS's reason is the source, shown once in a chain.
    let io = crate::error_text::io_source(&err);
    assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
    assert_eq!(
        crate::error_text::chain(&err),
        format!("cannot read Claude Desktop config /nonexistent/claude.json: {io}")
    );
}

#[test]
fn an_invalid_entry_keeps_its_typed_problem() {
    let err = parse(r#"{"mcpServers": {"x": {"disabled": "yes"}}}"#).unwrap_err();
    match &err {
        ClaudeDesktopError::Entry { name, problem, .. } => {
            assert_eq!(name, "x");
            assert_eq!(*problem, EntryError::Disabled);
        }
        other => panic!("{other:?}"),
    }
    // The line is self-contained: the problem is in the message, not repeated as a source.
    assert!(std::error::Error::source(&err).is_none());
    assert_eq!(
        crate::error_text::chain(&err),
        "invalid Claude Desktop config claude_desktop_config.json: mcpServers.\"x\": `disabled` must be true or false"
    );
}
