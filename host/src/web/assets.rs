//! The console's static files, embedded in the binary: htmx and its Server-Sent Events
//! extension (vendored unmodified under `host/vendor/`, see its README for versions and
//! licences), and the stylesheet.

use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

const HTMX: &str = include_str!("../../vendor/htmx-2.0.11/htmx.min.js");
const HTMX_SSE: &str = include_str!("../../vendor/htmx-ext-sse-2.2.4/sse.min.js");
const STYLE: &str = include_str!("console.css");

/// `GET /assets/{name}`.
pub(super) async fn asset(Path(name): Path<String>) -> Response {
    let (body, kind) = match name.as_str() {
        "htmx.min.js" => (HTMX, "text/javascript; charset=utf-8"),
        "sse.min.js" => (HTMX_SSE, "text/javascript; charset=utf-8"),
        "console.css" => (STYLE, "text/css; charset=utf-8"),
        _ => return StatusCode::NOT_FOUND.into_response(),
    };
    (
        [
            (header::CONTENT_TYPE, kind),
            // The files change only with the binary.
            (header::CACHE_CONTROL, "public, max-age=3600"),
        ],
        body,
    )
        .into_response()
}
