//! Malformed input on `maitool serve --mcp-stdio` (the real binary, fed raw bytes as a broken
//! or hostile client would send them): each gets the JSON-RPC error the spec names, parse
//! errors with `id: null`, and the server keeps serving the same connection.

mod mcp_front_support;

use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use mcp_front_support::Fixture;
use serde_json::{Value, json};

struct Client {
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
}

impl Client {
    fn send(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.write_all(b"\n").unwrap();
        self.stdin.flush().unwrap();
    }

    /// The next response, skipping notifications (`tools/list_changed` arrives as the
    /// runners come up).
    fn answer(&self, what: &str) -> Value {
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(30))
                .unwrap_or_else(|_| panic!("no answer to {what} within 30 s"));
            let message: Value = serde_json::from_str(&line)
                .unwrap_or_else(|err| panic!("{what}: non-JSON {line:?}: {err}"));
            if message.get("method").is_none() {
                return message;
            }
        }
    }

    fn error(&mut self, bytes: &[u8], what: &str) -> (i64, Value, String) {
        self.send(bytes);
        let answer = self.answer(what);
        let error = &answer["error"];
        assert!(error.is_object(), "{what}: {answer}");
        (
            error["code"].as_i64().unwrap(),
            answer["id"].clone(),
            error["message"].as_str().unwrap().to_owned(),
        )
    }
}

#[test]
fn malformed_stdio_messages_get_spec_errors_and_the_connection_keeps_serving() {
    let fixture = Fixture::new();
    let mut child = fixture
        .maitool()
        .args(["serve", "--mcp-stdio"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { return };
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    let mut client = Client {
        stdin: child.stdin.take().unwrap(),
        lines,
    };
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}});
    client.send(initialize.to_string().as_bytes());
    assert_eq!(client.answer("initialize")["id"], 1);
    client.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);

    let (code, id, message) = client.error(b"this is not json", "a garbage line");
    assert_eq!((code, &id), (-32700, &Value::Null), "{message}");
    let (code, id, message) = client.error(
        b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\xff\"}",
        "invalid UTF-8",
    );
    assert_eq!((code, &id), (-32700, &Value::Null), "{message}");
    assert!(message.contains("not UTF-8"), "{message}");
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let (code, id, message) = client.error(deep.as_bytes(), "10,000-deep JSON");
    assert_eq!((code, &id), (-32700, &Value::Null), "{message}");
    assert!(message.contains("recursion limit"), "{message}");
    let (code, id, message) =
        client.error(br#"[{"jsonrpc":"2.0","id":6,"method":"ping"}]"#, "a batch");
    assert_eq!((code, &id), (-32600, &Value::Null), "{message}");
    let array_arguments = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "calculate", "arguments": [1, 2]}});
    let (code, id, message) =
        client.error(array_arguments.to_string().as_bytes(), "array arguments");
    assert_eq!((code, id), (-32602, json!(7)), "{message}");
    assert!(
        message.contains("arguments must be an object, got an array"),
        "{message}"
    );

    // The same connection still serves (once the runner with `calculate` is up: serve
    // answers before its sources are).
    fixture.wait_settled();
    let call = json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call",
        "params": {"name": "calculate", "arguments": {"a": 20, "b": 22, "op": "add"}}});
    client.send(call.to_string().as_bytes());
    let answer = client.answer("a good call after the bad ones");
    assert_eq!(answer["id"], 8, "{answer}");
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    assert!(answer["result"].to_string().contains("42"), "{answer}");

    drop(client);
    let status = child.wait().unwrap();
    assert!(
        status.success(),
        "serve exits cleanly at end of input: {status}"
    );
}
