//! `maitool serve --metrics ADDR`: the Prometheus endpoint.
//!
//! The endpoint renders each scrape through the host's control socket rather than holding the
//! host itself: it is bound before the host starts (so a busy port fails before any runner
//! starts), answers `503` until the host serves, and needs nothing from the serve loop.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use crate::control::ControlClient;
use crate::metrics::{MetricsEndpoint, MetricsSource};
use anyhow::{Context, Result};
use futures::FutureExt;
use futures::future::BoxFuture;

/// Renders the exposition of the host on a control socket.
struct ControlMetrics {
    socket: PathBuf,
}

impl MetricsSource for ControlMetrics {
    fn render(&self) -> BoxFuture<'static, Result<String, String>> {
        let socket = self.socket.clone();
        async move {
            let client = ControlClient::connect(&socket)
                .await
                .ok_or_else(|| format!("the host on {} is not serving (yet)", socket.display()))?;
            client
                .metrics()
                .await
                .map_err(|err| format!("the host did not answer: {err}"))
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
