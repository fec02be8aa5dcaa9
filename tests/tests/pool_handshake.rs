//! A pool's listener facing clients that are not members: raw TCP connections on loopback
//! whose first frame is not a `runner.hello`, or is one that does not decode. Each is answered
//! with an error envelope saying why, as a child runner on the Unix socket would be, and the
//! pool goes on serving its real member.

mod pool_support;

use std::time::Duration;

use maitool_protocol::wire::methods::names;
use maitool_protocol::wire::{
    Envelope, EnvelopeHeader, ErrorCode, MessageType, decode_header, encode_envelope,
};
use pool_support::*;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Sends `envelope` as the connection's first frame and reads the host's answer.
async fn first_frame_answer(addr: &str, envelope: &Envelope<serde_json::Value>) -> EnvelopeHeader {
    let mut stream = TcpStream::connect(addr).await.expect("the pool listens");
    let body = encode_envelope(envelope).expect("encodes");
    stream
        .write_all(&(body.len() as u32).to_be_bytes())
        .await
        .unwrap();
    stream.write_all(&body).await.unwrap();
    let read = async {
        let mut length = [0u8; 4];
        stream.read_exact(&mut length).await?;
        let mut frame = vec![0u8; u32::from_be_bytes(length) as usize];
        stream.read_exact(&mut frame).await?;
        std::io::Result::Ok(frame)
    };
    let frame = tokio::time::timeout(Duration::from_secs(10), read)
        .await
        .expect("the host answers within 10 s")
        .expect("the host answers before closing");
    let header = decode_header(&frame).expect("the answer is an envelope");
    // Nothing follows the refusal: the host closes the connection.
    let mut rest = Vec::new();
    let closed = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut rest))
        .await
        .expect("the host closes the refused connection");
    assert!(closed.is_ok() && rest.is_empty(), "{closed:?} {rest:?}");
    header
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_first_frame_that_is_not_a_well_formed_hello_is_answered_with_why_and_the_pool_serves_on()
{
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, TOKEN).unwrap();
    let (harness, addr) = host_with_pool(pool_config(None)).await;

    let not_hello = Envelope::request(7, "plugin.invoke_tool", "", 0, json!({"tool": "x"}));
    let answer = first_frame_answer(&addr, &not_hello).await;
    assert_eq!(answer.request_id, 7);
    assert_eq!(answer.message_type, MessageType::Response);
    let error = answer.error.expect("an error answer");
    assert_eq!(error.code, ErrorCode::ProtocolMismatch, "{error:?}");
    assert!(
        error
            .message
            .contains("first message must be a runner.hello request, got plugin.invoke_tool"),
        "{error:?}"
    );

    // A hello whose fields have the wrong types.
    let malformed = Envelope::request(
        8,
        names::HELLO,
        "",
        0,
        json!({"pool": 42, "session_token": ["not", "a", "string"]}),
    );
    let answer = first_frame_answer(&addr, &malformed).await;
    assert_eq!(answer.request_id, 8);
    let error = answer.error.expect("an error answer");
    assert_eq!(error.code, ErrorCode::BadPayload, "{error:?}");
    assert!(
        error.message.starts_with("malformed runner.hello: "),
        "the reason says what did not decode: {error:?}"
    );

    let host_log = maitool_e2e::logs::lines().join("\n");
    assert!(
        host_log.contains("first message must be a runner.hello request")
            && host_log.contains("malformed runner.hello"),
        "the host log names both refusals:\n{host_log}"
    );

    // The listener kept serving: a real member joins and answers.
    let member = MemberSpec::new(dir.path(), &addr, &token, "after");
    let _member = Running(member.spawn());
    members(&harness, 1).await;
    let answer = call(&harness, "p1_echo", json!({"text": "still serving"}), "h-1").await;
    assert!(answer.success, "{answer:?}");
    harness.stop().await;
}
