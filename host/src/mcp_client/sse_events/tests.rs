use super::*;

fn parse(chunks: &[&[u8]]) -> Vec<SseEvent> {
    let mut parser = SseParser::default();
    let mut out = Vec::new();
    for chunk in chunks {
        parser.feed(chunk, &mut out).unwrap();
    }
    out
}

#[test]
fn events_survive_any_chunking() {
    let stream: &[u8] = b": keep-alive\r\nevent: endpoint\r\ndata: /message?sessionId=1\r\n\r\ndata: {\"a\":\ndata: 1}\n\nevent: x\n\n";
    let expected = vec![
        SseEvent {
            event: "endpoint".to_owned(),
            data: "/message?sessionId=1".to_owned(),
        },
        SseEvent {
            event: "message".to_owned(),
            data: "{\"a\":\n1}".to_owned(),
        },
    ];
    assert_eq!(parse(&[stream]), expected);
    let bytes: Vec<&[u8]> = stream.chunks(1).collect();
    assert_eq!(parse(&bytes), expected);
    let (a, b) = stream.split_at(29);
    assert_eq!(parse(&[a, b]), expected);
}

#[test]
fn oversized_events_are_rejected() {
    let mut parser = SseParser::default();
    let mut out = Vec::new();
    let big = vec![b'x'; MAX_EVENT_BYTES];
    parser.feed(b"data: ", &mut out).unwrap();
    assert!(parser.feed(&big, &mut out).is_err());
}
