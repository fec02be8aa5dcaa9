use super::*;

fn code(line: &[u8]) -> Option<(i64, Value)> {
    check(line).err().map(|answer| {
        (
            answer["error"]["code"].as_i64().unwrap(),
            answer["id"].clone(),
        )
    })
}

#[test]
fn malformed_lines_get_the_spec_codes() {
    assert_eq!(code(b"garbage"), Some((-32700, Value::Null)));
    assert_eq!(code(b"{\"a\":\xff}"), Some((-32700, Value::Null)));
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    assert_eq!(code(deep.as_bytes()), Some((-32700, Value::Null)));
    assert_eq!(
        code(b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]"),
        Some((-32600, Value::Null))
    );
    assert_eq!(code(b"42"), Some((-32600, Value::Null)));
    assert_eq!(
        code(br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":[1]}}"#),
        Some((-32602, json!(7)))
    );
    assert_eq!(
        code(br#"{"jsonrpc":"2.0","id":"a","method":"tools/list","params":[]}"#),
        Some((-32602, json!("a")))
    );
    assert_eq!(check(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{}}}"#), Ok(true));
    assert_eq!(check(b"  \r"), Ok(false));
}
