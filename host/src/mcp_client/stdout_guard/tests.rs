use super::*;

#[test]
fn the_id_is_found_at_either_end() {
    assert_eq!(
        response_id(
            b"{\"result\":{\"content\":[{\"text\":\"xx",
            b"xx\"}]},\"jsonrpc\":\"2.0\",\"id\":3}"
        ),
        Some(json!(3))
    );
    assert_eq!(
        response_id(
            b"{\"jsonrpc\":\"2.0\",\"id\":\"a-1\",\"result\":{\"content\":[",
            b"xxx\"}]}}"
        ),
        Some(json!("a-1"))
    );
    // A nested "id" at the end is not the response's.
    assert_eq!(
        response_id(
            b"{\"method\":\"notifications/x\",\"params\":{",
            b"{\"id\":4}}"
        ),
        None
    );
}

#[tokio::test]
async fn an_oversized_line_becomes_an_error_for_its_id_and_the_next_line_passes() {
    let mut input = Vec::new();
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{\"text\":\"");
    input.resize(input.len() + MAX_LINE, b'x');
    input.extend_from_slice(b"\"}}\n{\"jsonrpc\":\"2.0\",\"id\":10,\"result\":{}}\n");
    let reader = guard("s".to_owned(), std::io::Cursor::new(input));
    let mut lines = BufReader::new(reader).lines();
    let first: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(first["id"], 9);
    assert_eq!(first["error"]["code"], -32603);
    assert!(
        first["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("response too large")
    );
    let second = lines.next_line().await.unwrap().unwrap();
    assert_eq!(second, r#"{"jsonrpc":"2.0","id":10,"result":{}}"#);
    assert!(lines.next_line().await.unwrap().is_none());
}
