use crate::config::HostConfig;
use crate::mcp_client::{McpAuthorizationMode, McpConfig, McpServerConfig};

const TOKEN: &str = "tok-7f3a9c1e-not-for-logs";
const HEADER_SECRET: &str = "hdr-51b2d0aa-not-for-logs";
const ENV_SECRET: &str = "env-c4e8f9b3-not-for-logs";

fn secret_server() -> McpServerConfig {
    let mut server = McpServerConfig::streamable_http("remote", "https://mcp.example/mcp");
    server.authorization.mode = McpAuthorizationMode::Bearer;
    server.authorization.bearer_token = TOKEN.to_owned();
    server
        .headers
        .insert("X-Api-Key".to_owned(), HEADER_SECRET.to_owned());
    server
        .env
        .insert("OPENAI_API_KEY".to_owned(), ENV_SECRET.to_owned());
    server
}

fn assert_no_secret(text: &str) {
    for secret in [TOKEN, HEADER_SECRET, ENV_SECRET] {
        assert!(!text.contains(secret), "{secret} leaked: {text}");
    }
}

#[test]
fn debug_of_a_server_hides_token_header_and_env_values_but_keeps_the_keys() {
    let server = secret_server();
    for text in [format!("{server:?}"), format!("{server:#?}")] {
        assert_no_secret(&text);
        assert!(text.contains("X-Api-Key"), "{text}");
        assert!(text.contains("OPENAI_API_KEY"), "{text}");
        assert!(text.contains("bearer_token: <redacted>"), "{text}");
        assert!(text.contains("mode: Bearer"), "{text}");
        assert!(text.contains("https://mcp.example/mcp"), "{text}");
    }
}

#[test]
fn an_unset_secret_shows_as_empty_not_redacted() {
    let server = McpServerConfig::streamable_http("open", "http://127.0.0.1:1/mcp");
    let text = format!("{server:?}");
    assert!(text.contains("bearer_token: \"\""), "{text}");
}

#[test]
fn debug_of_the_whole_host_config_is_redacted_too() {
    let config = HostConfig {
        mcp: McpConfig {
            enable: true,
            servers: vec![secret_server()],
            ..McpConfig::default()
        },
        ..HostConfig::default()
    };
    assert_no_secret(&format!("{config:?}"));
    let loaded = config
        .resolve(None, std::path::Path::new("/tmp"))
        .expect("valid config");
    assert_no_secret(&format!("{loaded:?}"));
    // Redaction is for display only: the values themselves are intact.
    let server = &loaded.config.mcp.servers[0];
    assert_eq!(server.authorization.bearer_token, TOKEN);
    assert_eq!(server.headers["X-Api-Key"], HEADER_SECRET);
}
