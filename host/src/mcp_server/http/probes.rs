//! Probes for a balancer or an orchestrator beside the MCP endpoint: `GET /livez` (liveness:
//! 200 while the process serves HTTP at all; `/healthz` too, the older name many balancers
//! default to) and `GET /readyz` (readiness: 200 once a client's first `tools/list` would be
//! complete, 503 with what it still waits for before that), as a pool member answers them. A
//! balancer that sends clients only to ready hosts never hands one a partial first listing.

use axum::response::{IntoResponse, Response};
use http::StatusCode;

use crate::settle::SettleGate;

/// The liveness probe's path.
pub const LIVE_PATH: &str = "/livez";
/// The liveness probe's older name.
pub const HEALTH_PATH: &str = "/healthz";
/// The readiness probe's path.
pub const READY_PATH: &str = "/readyz";

/// `200 ok` while the front serves.
pub(crate) async fn livez() -> Response {
    (StatusCode::OK, "ok\n").into_response()
}

/// `200 ready` once `settled` is open; `503 not ready: waiting for ...` before.
pub(crate) async fn readyz(settled: SettleGate) -> Response {
    if settled.is_open() {
        return (StatusCode::OK, "ready\n").into_response();
    }
    let waiting = settled.waiting_for();
    let body = if waiting.is_empty() {
        "not ready: the first tool listing is not complete yet\n".to_owned()
    } else {
        format!(
            "not ready: the first tool listing waits for {}\n",
            waiting.join("; ")
        )
    };
    (StatusCode::SERVICE_UNAVAILABLE, body).into_response()
}
