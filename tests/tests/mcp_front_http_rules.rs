//! What `maitool serve --mcp-http` answers at the HTTP level (the real binary, raw HTTP/1.1
//! requests, and the Python MCP SDK's client): no SSE priming event, `Origin` validation with
//! operator-allowed origins and CORS preflight, and session termination answered 204.

mod mcp_front_support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use mcp_front_support::{Fixture, HttpServe, Transport, python, run_plan};
use serde_json::json;

struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

/// One HTTP/1.1 request on its own connection, read to its end.
fn request(url: &str, method: &str, headers: &[(&str, &str)], body: &str) -> Answer {
    let authority = url
        .strip_prefix("http://")
        .and_then(|rest| rest.split('/').next())
        .unwrap();
    let mut stream = TcpStream::connect(authority).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut text = format!(
        "{method} /mcp HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str("\r\n");
    text.push_str(body);
    stream.write_all(text.as_bytes()).unwrap();
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (head, rest) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(": "))
        .map(|(key, value)| (key.to_owned(), value.to_owned()))
        .collect();
    let chunked = headers
        .iter()
        .any(|(key, value)| key.eq_ignore_ascii_case("transfer-encoding") && value == "chunked");
    let body = if chunked {
        dechunk(rest)
    } else {
        rest.to_owned()
    };
    Answer {
        status,
        headers,
        body,
    }
}

fn dechunk(mut rest: &str) -> String {
    let mut body = String::new();
    while let Some((size, after)) = rest.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if size == 0 || after.len() < size {
            break;
        }
        body.push_str(&after[..size]);
        rest = after[size..].trim_start_matches("\r\n");
    }
    body
}

fn initialize() -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}})
    .to_string()
}

const POST: [(&str, &str); 2] = [
    ("Content-Type", "application/json"),
    ("Accept", "application/json, text/event-stream"),
];

fn post_initialize(url: &str, origin: Option<&str>) -> Answer {
    let mut headers = POST.to_vec();
    if let Some(origin) = origin {
        headers.push(("Origin", origin));
    }
    request(url, "POST", &headers, &initialize())
}

#[test]
fn responses_carry_no_sse_priming_event() {
    let fixture = Fixture::new();
    let serve = HttpServe::start(&fixture);
    let answer = post_initialize(&serve.url, None);
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.header("content-type"), Some("text/event-stream"));
    assert!(
        answer.body.starts_with("data: {"),
        "the first event is the response: {:?}",
        answer.body
    );
    assert!(answer.body.contains("\"result\""), "{}", answer.body);
    assert!(
        !answer.body.contains("retry:") && !answer.body.contains("id: 0"),
        "a priming event: {:?}",
        answer.body
    );
    assert!(serve.stop().success());
}

#[test]
fn foreign_origins_are_refused_and_allowed_ones_get_cors() {
    let fixture = Fixture::new();
    let allowed = "https://app.example.com";
    let serve = HttpServe::start_with(&fixture, &["--mcp-allowed-origin", allowed]);

    // DNS rebinding: a page of another origin reaching the loopback server.
    let refused = post_initialize(&serve.url, Some("http://evil.example"));
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert!(refused.body.contains("not allowed"), "{}", refused.body);
    let preflight_refused = request(
        &serve.url,
        "OPTIONS",
        &[
            ("Origin", "http://evil.example"),
            ("Access-Control-Request-Method", "POST"),
        ],
        "",
    );
    assert_eq!(preflight_refused.status, 403);

    // No Origin (not a browser) and loopback origins pass.
    assert_eq!(post_initialize(&serve.url, None).status, 200);
    assert_eq!(
        post_initialize(&serve.url, Some("http://localhost:6274")).status,
        200
    );

    // The operator's origin: preflight answered, responses carry CORS headers.
    let preflight = request(
        &serve.url,
        "OPTIONS",
        &[
            ("Origin", allowed),
            ("Access-Control-Request-Method", "POST"),
            (
                "Access-Control-Request-Headers",
                "content-type, mcp-session-id",
            ),
        ],
        "",
    );
    assert_eq!(preflight.status, 204, "{}", preflight.body);
    assert_eq!(
        preflight.header("access-control-allow-origin"),
        Some(allowed)
    );
    let methods = preflight.header("access-control-allow-methods").unwrap();
    assert!(
        methods.contains("POST") && methods.contains("DELETE"),
        "{methods}"
    );
    let headers = preflight.header("access-control-allow-headers").unwrap();
    assert!(
        headers.contains("mcp-session-id") && headers.contains("content-type"),
        "{headers}"
    );
    let answer = post_initialize(&serve.url, Some(allowed));
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.header("access-control-allow-origin"), Some(allowed));
    assert!(
        answer
            .header("access-control-expose-headers")
            .is_some_and(|exposed| exposed.contains("mcp-session-id"))
    );
    assert!(answer.header("mcp-session-id").is_some());
    assert!(serve.stop().success());
}

#[test]
fn without_allowed_origins_there_is_no_cors_and_a_bad_origin_entry_is_refused_at_start() {
    let fixture = Fixture::new();
    let serve = HttpServe::start(&fixture);
    let preflight = request(
        &serve.url,
        "OPTIONS",
        &[
            ("Origin", "http://localhost:6274"),
            ("Access-Control-Request-Method", "POST"),
        ],
        "",
    );
    assert_eq!(preflight.status, 405, "no CORS unless origins are allowed");
    assert!(serve.stop().success());

    let output = fixture
        .maitool()
        .args([
            "serve",
            "--mcp-http",
            "127.0.0.1:0",
            "--mcp-allowed-origin",
            "app.example.com",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("invalid allowed origin \"app.example.com\": no scheme"),
        "{stderr}"
    );
}

#[test]
fn session_termination_is_answered_204_and_the_python_client_accepts_it() {
    let fixture = Fixture::new();
    let serve = HttpServe::start(&fixture);
    let opened = post_initialize(&serve.url, None);
    let session = opened
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    let deleted = request(
        &serve.url,
        "DELETE",
        &[
            ("Mcp-Session-Id", &session),
            ("MCP-Protocol-Version", "2025-11-25"),
        ],
        "",
    );
    assert_eq!(deleted.status, 204, "{}", deleted.body);
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string();
    let mut headers = POST.to_vec();
    headers.push(("Mcp-Session-Id", &session));
    headers.push(("MCP-Protocol-Version", "2025-11-25"));
    let after = request(&serve.url, "POST", &headers, &list);
    assert_eq!(after.status, 404, "the session is gone: {}", after.body);

    // The Python SDK client ends its session with DELETE and warns unless it gets 200/204.
    if let Some(python) = python() {
        let plan = json!([{"id": "info", "kind": "info"}]);
        let results = run_plan(
            &python,
            &fixture,
            Transport::Http,
            Some(&serve.url),
            "legacy",
            plan,
            |_| {},
        );
        assert_eq!(results["info"]["server_info"]["name"], "maitool");
        let logs: String = std::fs::read_dir(fixture.dir.path())
            .unwrap()
            .filter_map(Result::ok)
            .filter(|entry| entry.file_name().to_string_lossy().starts_with("client-"))
            .map(|entry| std::fs::read_to_string(entry.path()).unwrap_or_default())
            .collect();
        assert!(!logs.contains("Session termination failed"), "{logs}");
    }
    assert!(serve.stop().success());
}
