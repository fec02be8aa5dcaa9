//! Who may use the web console, over real HTTP to `maitool serve --web`: off loopback it
//! refuses to start without a token; with one, nothing but the login page and the static
//! files answers without it; no page shows a secret.

mod web_support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;

use maitool_e2e::workspace_bin;
use web_support::Console;

/// One HTTP/1.1 request; (status, headers and body as text).
fn http(
    url: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String) {
    let authority = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned();
    let mut stream = TcpStream::connect(&authority).expect("the console answers");
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nhost: {authority}\r\nconnection: close\r\ncontent-length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let status = answer
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    (status, answer)
}

const TOKEN: &str = "a-console-token-0123456789";

fn dice_config(web: &str) -> String {
    let target = maitool_e2e::target_dir();
    format!(
        r#"[host]
enable_builtin = false

[[runners]]
name = "dice"
executable = "{}/maitool-example-dice"
env = {{ DICE_SECRET = "hunter2-env-value" }}

[runners.plugins."examples.dice".config]
max_dice = 5
api_key = "sk-live-secret-value"

{web}
"#,
        target.display()
    )
}

#[test]
fn off_loopback_without_a_token_serve_refuses_to_start() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("maitool.toml");
    std::fs::write(&config, dice_config("")).unwrap();
    let output = Command::new(workspace_bin("maitool"))
        .arg("--config")
        .arg(&config)
        .arg("--control-socket")
        .arg(dir.path().join("c.sock"))
        .args(["serve", "--web", "0.0.0.0:0"])
        .output()
        .expect("maitool runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("off loopback, and needs a token: set `[web] token`"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("runner ready"),
        "a runner started: {stderr}"
    );
}

#[test]
fn a_short_token_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("maitool.toml");
    std::fs::write(&config, dice_config("[web]\ntoken = \"short\"")).unwrap();
    let output = Command::new(workspace_bin("maitool"))
        .arg("--config")
        .arg(&config)
        .arg("--control-socket")
        .arg(dir.path().join("c.sock"))
        .args(["serve", "--web", "127.0.0.1:0"])
        .output()
        .expect("maitool runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("must be at least 16 characters"),
        "{stderr}"
    );
}

#[test]
fn with_a_token_only_the_login_answers_without_it_and_no_page_shows_a_secret() {
    let console = Console::start(&dice_config(
        "[web]\ntoken = \"${MAITOOL_TEST_WEB_TOKEN:-a-console-token-0123456789}\"",
    ));
    let url = console.url.clone();
    let (status, page) = http(&url, "GET", "/", &[], "");
    assert_eq!(status, 401, "{page}");
    assert!(page.contains("Console token"), "{page}");
    let (status, _) = http(&url, "GET", "/events", &[], "");
    assert_eq!(status, 401);
    let (status, _) = http(&url, "GET", "/assets/htmx.min.js", &[], "");
    assert_eq!(status, 200);
    let origin = [("origin", url.trim_end_matches('/'))];
    let (status, _) = http(&url, "POST", "/reload", &origin, "");
    assert_eq!(status, 401, "a state change without the token");

    let wrong = format!("token={}", "x".repeat(TOKEN.len()));
    let form = [
        origin[0],
        ("content-type", "application/x-www-form-urlencoded"),
    ];
    let (status, _) = http(&url, "POST", "/login", &form, &wrong);
    assert_eq!(status, 401);
    let (status, answer) = http(&url, "POST", "/login", &form, &format!("token={TOKEN}"));
    assert_eq!(status, 303, "{answer}");
    assert!(
        answer.contains("set-cookie: maitool_console=") && answer.contains("HttpOnly"),
        "{answer}"
    );
    let cookie = format!("maitool_console={TOKEN}");
    for path in ["/", "/plugins/examples.dice", "/logs"] {
        let (status, page) = http(&url, "GET", path, &[("cookie", &cookie)], "");
        assert_eq!(status, 200, "{path}: {page}");
        for secret in ["hunter2-env-value", "sk-live-secret-value", TOKEN] {
            assert!(!page.contains(secret), "{path} shows {secret}:\n{page}");
        }
    }
    let bearer = format!("Bearer {TOKEN}");
    let (status, page) = http(
        &url,
        "GET",
        "/plugins/examples.dice",
        &[("authorization", &bearer)],
        "",
    );
    assert_eq!(status, 200);
    // The plugin refuses the unknown key: its reason shows, the key's value does not.
    assert!(page.contains("api_key"), "{page}");
    assert!(page.contains("********"), "{page}");
}
