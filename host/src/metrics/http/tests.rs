use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::{HttpLimits, MetricsEndpoint, MetricsSource, RenderError};

struct Fixed(Result<&'static str, &'static str>);

impl MetricsSource for Fixed {
    fn render(&self) -> BoxFuture<'static, Result<String, RenderError>> {
        let answer = self.0.map(str::to_owned).map_err(RenderError::from);
        async move { answer }.boxed()
    }
}

/// A source whose failure has a cause, as the CLI's (the control socket's error).
struct Unreachable;

#[derive(Debug, thiserror::Error)]
#[error("the host did not answer")]
struct NoAnswer(#[source] std::io::Error);

impl MetricsSource for Unreachable {
    fn render(&self) -> BoxFuture<'static, Result<String, RenderError>> {
        let err = NoAnswer(std::io::Error::other("connection reset"));
        async move { Err(err.into()) }.boxed()
    }
}

#[tokio::test]
async fn a_503_body_carries_the_cause_of_the_failure() {
    let endpoint = MetricsEndpoint::bind("127.0.0.1:0".parse().unwrap(), Arc::new(Unreachable))
        .await
        .unwrap();
    let response = request(&endpoint, b"GET /metrics HTTP/1.1\r\n\r\n").await;
    assert!(
        response.starts_with("HTTP/1.1 503 Service Unavailable\r\n"),
        "{response}"
    );
    assert!(
        response.ends_with("\r\n\r\nthe host did not answer: connection reset\n"),
        "{response}"
    );
}

async fn request(endpoint: &MetricsEndpoint, raw: &[u8]) -> String {
    let mut stream = TcpStream::connect(endpoint.address()).await.unwrap();
    stream.write_all(raw).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    response
}

#[tokio::test]
async fn get_metrics_answers_the_exposition_with_its_content_type() {
    let endpoint = MetricsEndpoint::bind(
        "127.0.0.1:0".parse().unwrap(),
        Arc::new(Fixed(Ok("up 1\n"))),
    )
    .await
    .unwrap();
    let response = request(
        &endpoint,
        b"GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\n",
    )
    .await;
    assert!(response.starts_with("HTTP/1.1 200 OK\r\n"), "{response}");
    assert!(
        response.contains("Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"),
        "{response}"
    );
    assert!(response.contains("Content-Length: 5\r\n"), "{response}");
    assert!(response.ends_with("\r\n\r\nup 1\n"), "{response}");

    let head = request(&endpoint, b"HEAD /metrics?x=1 HTTP/1.0\r\n\r\n").await;
    assert!(
        head.starts_with("HTTP/1.1 200 OK\r\n") && head.ends_with("\r\n\r\n"),
        "{head}"
    );
}

#[tokio::test]
async fn other_paths_methods_and_oversized_heads_get_error_statuses() {
    let endpoint = MetricsEndpoint::bind(
        "127.0.0.1:0".parse().unwrap(),
        Arc::new(Fixed(Ok("up 1\n"))),
    )
    .await
    .unwrap();
    let missing = request(&endpoint, b"GET / HTTP/1.1\r\n\r\n").await;
    assert!(
        missing.starts_with("HTTP/1.1 404 Not Found\r\n"),
        "{missing}"
    );
    let post = request(
        &endpoint,
        b"POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n",
    )
    .await;
    assert!(
        post.starts_with("HTTP/1.1 405 Method Not Allowed\r\n")
            && post.contains("Allow: GET, HEAD\r\n"),
        "{post}"
    );
    let mut huge = b"GET /metrics HTTP/1.1\r\n".to_vec();
    huge.extend(std::iter::repeat_n(b'a', 20_000));
    let oversized = request(&endpoint, &huge).await;
    assert!(oversized.starts_with("HTTP/1.1 431 "), "{oversized}");
    // The endpoint still serves after all of that.
    let ok = request(&endpoint, b"GET /metrics HTTP/1.1\r\n\r\n").await;
    assert!(ok.starts_with("HTTP/1.1 200 OK\r\n"), "{ok}");
}

#[tokio::test]
async fn an_unavailable_source_is_a_503_with_its_reason() {
    let endpoint = MetricsEndpoint::bind(
        "127.0.0.1:0".parse().unwrap(),
        Arc::new(Fixed(Err("host starting"))),
    )
    .await
    .unwrap();
    let response = request(&endpoint, b"GET /metrics HTTP/1.1\r\n\r\n").await;
    assert!(
        response.starts_with("HTTP/1.1 503 Service Unavailable\r\n"),
        "{response}"
    );
    assert!(response.ends_with("host starting\n"), "{response}");
}

#[tokio::test]
async fn dropping_the_endpoint_stops_listening() {
    let endpoint = MetricsEndpoint::bind("127.0.0.1:0".parse().unwrap(), Arc::new(Fixed(Ok(""))))
        .await
        .unwrap();
    let address = endpoint.address();
    drop(endpoint);
    tokio::task::yield_now().await;
    let mut refused = false;
    for _ in 0..100 {
        if TcpStream::connect(address).await.is_err() {
            refused = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert!(refused, "the port still accepts connections");
}

/// Far longer than any bound under test: a wait that reaches it is a failure.
const PATIENCE: std::time::Duration = std::time::Duration::from_secs(10);

/// Waits until the endpoint closes `stream`; what it sent first (an error status) is
/// ignored. Panics after [`PATIENCE`].
async fn closed_by_endpoint(stream: &mut TcpStream, what: &str) {
    let mut sink = Vec::new();
    let read = tokio::time::timeout(PATIENCE, stream.read_to_end(&mut sink)).await;
    assert!(read.is_ok(), "{what}: still open after {PATIENCE:?}");
}

#[tokio::test]
async fn a_client_sending_one_byte_at_a_time_is_cut_off_at_the_request_deadline() {
    let limits = HttpLimits {
        max_connections: 4,
        request_deadline: std::time::Duration::from_millis(300),
    };
    let endpoint = MetricsEndpoint::bind_with_limits(
        "127.0.0.1:0".parse().unwrap(),
        Arc::new(Fixed(Ok("up 1\n"))),
        limits,
    )
    .await
    .unwrap();
    let stream = TcpStream::connect(endpoint.address()).await.unwrap();
    let (mut read, mut write) = stream.into_split();
    // Each byte comes well inside the per-read deadline, so only a deadline on the whole
    // request ends this.
    let drip = tokio::spawn(async move {
        for byte in b"GET /metrics HTTP/1.1\r\nX-Slow: ".iter().cycle() {
            if write.write_all(&[*byte]).await.is_err() {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    });
    let mut sink = Vec::new();
    let closed = tokio::time::timeout(PATIENCE, read.read_to_end(&mut sink)).await;
    drip.abort();
    assert!(
        closed.is_ok(),
        "a dripping client was served past the deadline"
    );
    let ok = request(&endpoint, b"GET /metrics HTTP/1.1\r\n\r\n").await;
    assert!(ok.starts_with("HTTP/1.1 200 OK\r\n"), "{ok}");
}

#[tokio::test]
async fn connections_beyond_the_cap_wait_until_one_ends() {
    let limits = HttpLimits {
        max_connections: 2,
        request_deadline: std::time::Duration::from_secs(3600),
    };
    let endpoint = MetricsEndpoint::bind_with_limits(
        "127.0.0.1:0".parse().unwrap(),
        Arc::new(Fixed(Ok("up 1\n"))),
        limits,
    )
    .await
    .unwrap();
    let mut idle = Vec::new();
    for _ in 0..2 {
        idle.push(TcpStream::connect(endpoint.address()).await.unwrap());
    }
    let mut third = TcpStream::connect(endpoint.address()).await.unwrap();
    third
        .write_all(b"GET /metrics HTTP/1.1\r\n\r\n")
        .await
        .unwrap();
    // Two connections hold both slots: the third is not served while they are open.
    let mut first_byte = [0u8; 1];
    let early = tokio::time::timeout(
        std::time::Duration::from_millis(500),
        third.read(&mut first_byte),
    )
    .await;
    assert!(early.is_err(), "served beyond the cap: {early:?}");
    // One of them sends a bad request and is answered and closed: its slot goes to the third.
    idle[0].write_all(b"\r\n\r\n").await.unwrap();
    closed_by_endpoint(&mut idle[0], "the bad request").await;
    let mut response = Vec::new();
    tokio::time::timeout(PATIENCE, third.read_to_end(&mut response))
        .await
        .expect("served once a slot is free")
        .unwrap();
    let response = String::from_utf8_lossy(&response);
    assert!(response.starts_with("HTTP/1.1 200 OK\r\n"), "{response}");
}
