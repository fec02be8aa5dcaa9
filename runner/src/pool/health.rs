//! The member's HTTP probes ([`maitool_protocol::launch::pool::HEALTH_ADDRESS`]), for an
//! orchestrator: `GET /livez` answers 200 as long as the member's runtime answers at all (a
//! wedged runtime answers nothing, and the probe times out), `GET /readyz` answers 200 while
//! a host has accepted the member and it does not drain, and 503 with the reason otherwise.
//! Both are plain text, so `kubectl describe` shows why a member is not ready.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

use crate::accepted_links::AcceptedLinks;

/// Why the probe endpoint could not start.
#[derive(Debug, thiserror::Error)]
#[error(
    "cannot listen for probes on {address} ({})",
    maitool_protocol::launch::pool::HEALTH_ADDRESS
)]
pub(crate) struct HealthListenError {
    address: String,
    #[source]
    source: std::io::Error,
}

/// Binds `address` and serves the probes from a task; returns the bound address.
pub(crate) async fn serve(
    address: &str,
    links: Arc<AcceptedLinks>,
) -> Result<SocketAddr, HealthListenError> {
    let listener = TcpListener::bind(address)
        .await
        .map_err(|source| HealthListenError {
            address: address.to_owned(),
            source,
        })?;
    let bound = listener.local_addr().map_err(|source| HealthListenError {
        address: address.to_owned(),
        source,
    })?;
    tokio::spawn(async move {
        loop {
            let stream = match listener.accept().await {
                Ok((stream, _)) => stream,
                Err(err) => {
                    // Out of descriptors, most likely: the next accept may succeed.
                    tracing::warn!("probe endpoint: cannot accept: {err}");
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                    continue;
                }
            };
            let links = links.clone();
            tokio::spawn(async move {
                let service = service_fn(move |request| answer(request, links.clone()));
                // A prober that hangs up early is its own business.
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    Ok(bound)
}

async fn answer(
    request: Request<Incoming>,
    links: Arc<AcceptedLinks>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let (status, text) = match (request.method(), request.uri().path()) {
        (&Method::GET | &Method::HEAD, "/livez") => (StatusCode::OK, "alive\n".to_owned()),
        (&Method::GET | &Method::HEAD, "/readyz") => match links.readiness() {
            Ok(accepted) => (
                StatusCode::OK,
                format!("ready: accepted by {accepted} host connection(s)\n"),
            ),
            Err(why) => (
                StatusCode::SERVICE_UNAVAILABLE,
                format!("not ready: {why}\n"),
            ),
        },
        (_, "/livez" | "/readyz") => (
            StatusCode::METHOD_NOT_ALLOWED,
            "only GET and HEAD\n".to_owned(),
        ),
        (_, path) => (
            StatusCode::NOT_FOUND,
            format!("no probe at {path}: GET /livez or /readyz\n"),
        ),
    };
    let mut response = Response::new(Full::new(Bytes::from(text)));
    *response.status_mut() = status;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    Ok(response)
}
