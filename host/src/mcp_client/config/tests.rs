use std::io::Write as _;
use std::time::Duration;

use super::*;

fn parse(text: &str) -> McpConfig {
    toml::from_str(text).expect("valid TOML")
}

fn problems(config: &McpConfig) -> Vec<String> {
    match config.validate() {
        Err(McpConfigError::Invalid(problems)) => problems,
        other => panic!("expected validation problems, got {other:?}"),
    }
}

#[test]
fn a_maibot_config_parses_unchanged() {
    let config = parse(
        r#"
enable = true
[client]
client_name = "MaiBot"
client_version = "1.0.0"
roots = { enable = false, items = [{ enabled = true, uri = "", name = "" }] }
sampling = { enable = false, task_name = "planner", include_context_support = false, tool_support = false }
elicitation = { enable = false, allow_form = true, allow_url = false }

[[servers]]
name = "time"
enabled = true
transport = "stdio"
command = "uvx"
args = ["mcp-server-time"]
env = { TZ = "UTC" }
url = ""
headers = {}
http_timeout_seconds = 30.0
read_timeout_seconds = 300.0
authorization = { mode = "none", bearer_token = "" }

[[servers]]
name = "remote"
transport = "streamable_http"
url = "https://example.invalid/mcp"
headers = { "X-Team" = "bots" }
authorization = { mode = "bearer", bearer_token = "secret" }
"#,
    );
    assert!(config.enable);
    assert_eq!(config.client.client_name, "MaiBot");
    let servers = config.effective_servers().expect("valid");
    assert_eq!(servers.len(), 2);
    assert_eq!(servers[0].env["TZ"], "UTC");
    assert_eq!(servers[1].transport, McpTransport::StreamableHttp);
    assert_eq!(servers[1].authorization.mode, McpAuthorizationMode::Bearer);
    assert!(servers[1].enabled, "enabled defaults to true");
}

#[test]
fn defaults_follow_maibot() {
    let config = McpConfig::default();
    assert!(!config.enable);
    let server = McpServerConfig::default();
    assert!(server.enabled);
    assert_eq!(server.transport, McpTransport::Stdio);
    assert_eq!(server.http_timeout_seconds, 30.0);
    assert_eq!(server.read_timeout_seconds, 300.0);
    assert_eq!(server.idle_timeout(), Duration::from_secs(300));
    assert_eq!(server.protocol, McpProtocol::Auto);
}

#[test]
fn unknown_keys_are_rejected() {
    let err = toml::from_str::<McpConfig>("[[servers]]\nname = \"x\"\ncomand = \"y\"\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("comand"), "{err}");
}

#[test]
fn validation_names_the_server_and_the_key() {
    let config = parse(
        r#"
enable = true
[[servers]]
name = "time"
transport = "stdio"

[[servers]]
name = "web"
transport = "streamable_http"

[[servers]]
name = "auth"
transport = "sse"
url = "ftp://nope"
authorization = { mode = "bearer" }

[[servers]]
name = "time"
command = "x"
"#,
    );
    let problems = problems(&config);
    assert_eq!(
        problems,
        [
            "mcp.servers[0] (\"time\"): transport \"stdio\" needs `command`",
            "mcp.servers[1] (\"web\"): transport \"streamable_http\" needs `url`",
            "mcp.servers[2] (\"auth\"): `url` must start with http:// or https://, got \"ftp://nope\"",
            "mcp.servers[2] (\"auth\"): `authorization.mode = \"bearer\"` needs `authorization.bearer_token`",
            "mcp.servers[3] (\"time\"): `name` \"time\" is used by another enabled server",
        ]
    );
    let message = McpConfigError::Invalid(problems).to_string();
    assert!(message.starts_with("invalid MCP configuration: mcp.servers[0]"));
}

#[test]
fn disabled_servers_are_not_validated() {
    let config = parse(
        r#"
[[servers]]
name = ""
enabled = false

[[servers]]
name = "a"
command = "x"

[[servers]]
name = "a"
enabled = false
"#,
    );
    assert_eq!(config.effective_servers().unwrap().len(), 3);
}

#[test]
fn timeouts_headers_and_prefixes_are_checked() {
    let mut server = McpServerConfig::streamable_http("s", "http://127.0.0.1:1/mcp");
    server.read_timeout_seconds = 0.0;
    server.idle_timeout_seconds = Some(-1.0);
    server
        .headers
        .insert("bad header".to_owned(), "v".to_owned());
    server
        .headers
        .insert("X-Ok".to_owned(), "line\nbreak".to_owned());
    server.tool_prefix = "a b".to_owned();
    let mut config = McpConfig {
        enable: true,
        servers: vec![server],
        connect_timeout_seconds: Some(f64::NAN),
        ..McpConfig::default()
    };
    config.reconnect.max_delay_seconds = 0.0;
    config.client.sampling.enable = true;
    let problems = problems(&config);
    let expected = [
        "mcp.connect_timeout_seconds must be a positive number of seconds, got NaN",
        "mcp.reconnect.max_delay_seconds must be a positive number of seconds, got 0",
        "mcp.client.sampling.enable: server sampling is not supported by maitool; set it to false",
        "mcp.servers[0] (\"s\"): `headers` has an invalid header name \"bad header\"",
        "mcp.servers[0] (\"s\"): `headers.X-Ok` has an invalid header value",
        "mcp.servers[0] (\"s\"): `read_timeout_seconds` must be a positive number of seconds, got 0",
        "mcp.servers[0] (\"s\"): `idle_timeout_seconds` must be a positive number of seconds, got -1",
        "mcp.servers[0] (\"s\"): `tool_prefix` may only use A-Z a-z 0-9 _ . -, found ' '",
    ];
    assert_eq!(problems, expected);
}

#[test]
fn connect_timeouts_follow_maibot_with_an_override() {
    let stdio = McpServerConfig::stdio("a", "x", Vec::<String>::new());
    assert_eq!(stdio.connect_timeout(None), Duration::from_secs(30));
    let mut http = McpServerConfig::streamable_http("b", "http://h/mcp");
    assert_eq!(http.connect_timeout(None), Duration::from_secs(35));
    http.http_timeout_seconds = 1.0;
    assert_eq!(http.connect_timeout(None), Duration::from_secs(6));
    http.http_timeout_seconds = 0.5;
    assert_eq!(http.connect_timeout(None), Duration::from_millis(5500));
    http.http_timeout_seconds = 100.0;
    assert_eq!(http.connect_timeout(None), Duration::from_secs(60));
    assert_eq!(http.connect_timeout(Some(2.5)), Duration::from_millis(2500));
}

#[test]
fn reconnect_delay_doubles_up_to_the_cap() {
    let config = McpConfig::default();
    let delays: Vec<f64> = (0..9)
        .map(|attempt| config.reconnect_delay(attempt).as_secs_f64())
        .collect();
    assert_eq!(delays, [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0, 30.0]);
    assert_eq!(config.reconnect_delay(u32::MAX).as_secs_f64(), 30.0);
}

#[test]
fn the_claude_desktop_file_is_merged_after_servers_and_validated_with_them() {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    write!(
        file,
        r#"{{"mcpServers": {{"zeta": {{"command": "z"}}, "alpha": {{"url": "http://h/mcp"}}, "time": {{"command": "t"}}}}}}"#
    )
    .unwrap();
    let mut config = parse("enable = true\n[[servers]]\nname = \"time\"\ncommand = \"uvx\"\n");
    config.claude_desktop_config = Some(file.path().to_owned());
    let problems = problems(&config);
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0].starts_with("claude_desktop_config ")
            && problems[0].ends_with(
                ": mcpServers.\"time\": `name` \"time\" is used by another enabled server"
            ),
        "{problems:?}"
    );

    config.servers[0].name = "uv_time".to_owned();
    let names: Vec<String> = config
        .effective_servers()
        .unwrap()
        .into_iter()
        .map(|server| server.name)
        .collect();
    // File order, not alphabetical order.
    assert_eq!(names, ["uv_time", "zeta", "alpha", "time"]);
}

#[test]
fn relative_paths_resolve_against_the_config_directory() {
    let mut config = McpConfig {
        claude_desktop_config: Some("claude.json".into()),
        servers: vec![
            McpServerConfig {
                cwd: Some("servers/time".into()),
                ..McpServerConfig::stdio("t", "uvx", Vec::<String>::new())
            },
            McpServerConfig::stdio("local", "target/debug/server", Vec::<String>::new()),
            McpServerConfig::stdio("abs", "/usr/bin/server", Vec::<String>::new()),
        ],
        ..McpConfig::default()
    };
    config.resolve_paths(Path::new("/etc/maitool"));
    assert_eq!(
        config.claude_desktop_config.as_deref(),
        Some(Path::new("/etc/maitool/claude.json"))
    );
    assert_eq!(
        config.servers[0].cwd.as_deref(),
        Some(Path::new("/etc/maitool/servers/time"))
    );
    let commands: Vec<&str> = config.servers.iter().map(|s| s.command.as_str()).collect();
    assert_eq!(
        commands,
        ["uvx", "/etc/maitool/target/debug/server", "/usr/bin/server"]
    );
}
