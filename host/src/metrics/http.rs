//! A minimal HTTP/1.1 endpoint serving `GET /metrics` in the Prometheus text format.
//!
//! One request per connection (`Connection: close`), a bounded request head, at most
//! [`HttpLimits::max_connections`] connections at once (more wait in the listen backlog,
//! holding no descriptor of ours) and a deadline on each whole request, from accept to the
//! last byte written: enough for a scraper, and a client that sends nothing, or one byte at
//! a time, holds a connection for [`HttpLimits::request_deadline`] at most. Anything but
//! `GET`/`HEAD /metrics` gets a plain error status.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

use super::prometheus::CONTENT_TYPE;
use crate::accept::AcceptBackoff;

/// Longest request head read; longer requests get `431`.
const MAX_HEAD: usize = 8 * 1024;
/// How long a client may take to send its request head.
const READ_DEADLINE: Duration = Duration::from_secs(5);

/// Bounds on the endpoint's connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpLimits {
    /// Most connections served at once; the listener accepts no more until one ends.
    pub max_connections: usize,
    /// The longest a connection is served, from accept to close, whatever the client does.
    pub request_deadline: Duration,
}

impl Default for HttpLimits {
    fn default() -> Self {
        Self {
            max_connections: 32,
            request_deadline: Duration::from_secs(10),
        }
    }
}

/// Why a [`MetricsSource`] has no exposition now, boxed as tower's `BoxError` is: each source
/// has its own reasons. The `503` body is the error with its chain of causes.
pub type RenderError = Box<dyn std::error::Error + Send + Sync>;

/// Where the exposition comes from: rendered per scrape, so it is always current.
pub trait MetricsSource: Send + Sync + 'static {
    /// The exposition text, or why it is not available (answered with `503`).
    fn render(&self) -> BoxFuture<'static, Result<String, RenderError>>;
}

/// A listening endpoint; stops listening when dropped.
#[derive(Debug)]
pub struct MetricsEndpoint {
    address: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl MetricsEndpoint {
    /// Binds `address` (port 0 picks a free port) and serves `source` on it.
    pub async fn bind(
        address: SocketAddr,
        source: Arc<dyn MetricsSource>,
    ) -> std::io::Result<MetricsEndpoint> {
        Self::bind_with_limits(address, source, HttpLimits::default()).await
    }

    /// [`bind`](Self::bind) with other bounds on the connections than the defaults.
    pub async fn bind_with_limits(
        address: SocketAddr,
        source: Arc<dyn MetricsSource>,
        limits: HttpLimits,
    ) -> std::io::Result<MetricsEndpoint> {
        let listener = TcpListener::bind(address).await?;
        let address = listener.local_addr()?;
        let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
        let task = tokio::spawn(async move {
            let mut backoff = AcceptBackoff::new("metrics endpoint");
            loop {
                // The semaphore is never closed.
                let Ok(slot) = Arc::clone(&slots).acquire_owned().await else {
                    return;
                };
                match listener.accept().await {
                    Ok((stream, _)) => {
                        backoff.succeeded();
                        let source = source.clone();
                        tokio::spawn(async move {
                            let _slot = slot;
                            let served = tokio::time::timeout(
                                limits.request_deadline,
                                answer(stream, source),
                            );
                            if served.await.is_err() {
                                tracing::debug!(
                                    "metrics connection closed at its {} ms deadline",
                                    limits.request_deadline.as_millis()
                                );
                            }
                        });
                    }
                    Err(err) => tokio::time::sleep(backoff.failed(&err)).await,
                }
            }
        });
        Ok(MetricsEndpoint { address, task })
    }

    /// The bound address.
    pub fn address(&self) -> SocketAddr {
        self.address
    }
}

impl Drop for MetricsEndpoint {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Reads the request head: everything up to the blank line.
async fn read_head(stream: &mut TcpStream) -> Result<Vec<u8>, u16> {
    let mut head = Vec::with_capacity(512);
    let mut chunk = [0u8; 1024];
    loop {
        let read = match tokio::time::timeout(READ_DEADLINE, stream.read(&mut chunk)).await {
            Ok(Ok(read)) => read,
            Ok(Err(_)) | Err(_) => return Err(408),
        };
        if read == 0 {
            return Err(400);
        }
        head.extend_from_slice(&chunk[..read]);
        if head.windows(4).any(|window| window == b"\r\n\r\n")
            || head.windows(2).any(|window| window == b"\n\n")
        {
            return Ok(head);
        }
        if head.len() > MAX_HEAD {
            return Err(431);
        }
    }
}

async fn answer(mut stream: TcpStream, source: Arc<dyn MetricsSource>) {
    let (status, content_type, body, with_body) = match read_head(&mut stream).await {
        Err(408) => return,
        Err(status) => (status, "text/plain", String::new(), true),
        Ok(head) => {
            let line = String::from_utf8_lossy(&head);
            let mut parts = line.lines().next().unwrap_or_default().split_whitespace();
            let (method, target) = (
                parts.next().unwrap_or_default(),
                parts.next().unwrap_or_default(),
            );
            let path = target.split('?').next().unwrap_or_default();
            match (method, path) {
                ("GET" | "HEAD", "/metrics") => match source.render().await {
                    Ok(text) => (200, CONTENT_TYPE, text, method == "GET"),
                    Err(cause) => {
                        let body = format!("{}\n", crate::error_text::chain(&*cause));
                        (503, "text/plain", body, method == "GET")
                    }
                },
                (_, "/metrics") => (405, "text/plain", "only GET and HEAD\n".to_owned(), true),
                _ => (
                    404,
                    "text/plain",
                    "metrics are at /metrics\n".to_owned(),
                    true,
                ),
            }
        }
    };
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        431 => "Request Header Fields Too Large",
        _ => "Service Unavailable",
    };
    let mut response = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    if status == 405 {
        response.push_str("Allow: GET, HEAD\r\n");
    }
    response.push_str("\r\n");
    if with_body {
        response.push_str(&body);
    }
    // The scraper may have gone; nothing to do about a failed write.
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
    // A lingering close: closing with unread request bytes (an oversized head, a body) would
    // reset the connection and could destroy the response before the client reads it.
    let mut sink = [0u8; 1024];
    let drain = async { while matches!(stream.read(&mut sink).await, Ok(read) if read > 0) {} };
    let _ = tokio::time::timeout(Duration::from_secs(1), drain).await;
}

#[cfg(test)]
mod tests;
