use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::{MetricsEndpoint, MetricsSource};

struct Fixed(Result<&'static str, &'static str>);

impl MetricsSource for Fixed {
    fn render(&self) -> BoxFuture<'static, Result<String, String>> {
        let answer = self.0.map(str::to_owned).map_err(str::to_owned);
        async move { answer }.boxed()
    }
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
