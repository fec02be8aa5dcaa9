//! `maitool serve --metrics ADDR`: the Prometheus endpoint.
//!
//! The endpoint renders each scrape through the host's control socket rather than holding the
//! host itself: it is bound before the host starts (so a busy port fails before any runner
//! starts), answers `503` until the host serves, and needs nothing from the serve loop.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use crate::control::{ControlClient, ControlError};
use crate::metrics::{MetricsEndpoint, MetricsSource, RenderError};
use anyhow::{Context, Result};
use futures::FutureExt;
use futures::future::BoxFuture;

/// Renders the exposition of the host on a control socket.
struct ControlMetrics {
    socket: PathBuf,
}

/// Why the host on the control socket gave no exposition.
#[derive(Debug, thiserror::Error)]
enum ControlMetricsError {
    /// Nothing listens on the socket: the host has not started serving, or has stopped.
    #[error("the host on {} is not serving (yet)", .0.display())]
    NotServing(PathBuf),
    /// The host did not answer the request.
    #[error("the host did not answer")]
    NoAnswer(#[source] ControlError),
}

impl MetricsSource for ControlMetrics {
    fn render(&self) -> BoxFuture<'static, Result<String, RenderError>> {
        let socket = self.socket.clone();
        async move {
            let client = ControlClient::connect(&socket)
                .await
                .ok_or_else(|| ControlMetricsError::NotServing(socket.clone()))?;
            let text = client
                .metrics()
                .await
                .map_err(ControlMetricsError::NoAnswer)?;
            Ok(text)
        }
        .boxed()
    }
}

/// Binds the endpoint for the host that will serve on `socket`.
pub(super) async fn endpoint(address: SocketAddr, socket: PathBuf) -> Result<MetricsEndpoint> {
    let endpoint = MetricsEndpoint::bind(address, Arc::new(ControlMetrics { socket }))
        .await
        .with_context(|| format!("cannot listen on {address} for --metrics"))?;
    tracing::info!(address = %endpoint.address(), "serving Prometheus metrics on http://{}/metrics", endpoint.address());
    Ok(endpoint)
}
