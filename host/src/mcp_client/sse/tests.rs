use reqwest::header::HeaderMap;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::*;
use crate::error_text::chain;

#[tokio::test]
async fn a_refused_get_keeps_the_http_error_as_its_source() {
    // A port that was just free: nothing listens on it.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    drop(listener);
    let url = format!("http://{address}/sse");
    let err = SseTransport::connect(Client::new(), &url, HeaderMap::new())
        .await
        .expect_err("nothing listens");
    assert!(matches!(err, SseConnectError::Request { .. }), "{err:?}");
    let source = std::error::Error::source(&err).expect("reqwest's error is the source");
    assert!(source.downcast_ref::<reqwest::Error>().is_some());
    let text = chain(&err);
    assert!(text.starts_with(&format!("GET {url}: ")), "{text}");
    assert!(text.to_ascii_lowercase().contains("refused"), "{text}");
}

#[tokio::test]
async fn an_endpoint_on_another_origin_is_refused() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let server = tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.unwrap();
        let mut head = [0u8; 1024];
        let _ = stream.read(&mut head).await.unwrap();
        let body = "event: endpoint\ndata: http://other.example/messages\n\n";
        let response = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(response.as_bytes()).await.unwrap();
    });
    let url = format!("http://{address}/sse");
    let err = SseTransport::connect(Client::new(), &url, HeaderMap::new())
        .await
        .expect_err("the endpoint is elsewhere");
    assert!(
        matches!(&err, SseConnectError::CrossOrigin { endpoint, .. } if endpoint.host_str() == Some("other.example")),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "the server's endpoint http://other.example/messages is not on the origin of {url}"
        )
    );
    server.await.unwrap();
}

#[tokio::test]
async fn an_invalid_url_keeps_the_parse_error() {
    let err = SseTransport::connect(Client::new(), "not a url", HeaderMap::new())
        .await
        .expect_err("no URL");
    assert!(matches!(err, SseConnectError::Url { .. }), "{err:?}");
    assert!(std::error::Error::source(&err).is_some());
    assert_eq!(
        chain(&err),
        "invalid url \"not a url\": relative URL without a base"
    );
}
