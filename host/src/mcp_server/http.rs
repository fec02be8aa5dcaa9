//! What the Streamable HTTP front adds around rmcp's service: the `Origin` check against DNS
//! rebinding, CORS for the origins an operator allowed, and the status of a session's
//! termination.
//!
//! * **Origin.** The spec requires servers to validate `Origin`. A request without one (any
//!   client that is not a browser) passes; one with an `Origin` passes when it matches an
//!   allowed origin and is refused with 403 otherwise. Loopback origins (`http`/`https` on
//!   `localhost`, `127.0.0.1`, `[::1]`, any port) are always allowed, as are the bound
//!   address's own origins; `--mcp-allowed-origin` adds more.
//! * **CORS.** Only when the operator allowed origins of their own: a preflight (`OPTIONS`)
//!   from an allowed origin is answered 204 with the methods and MCP headers a browser
//!   client needs (2026-07-28's `Mcp-Method`, `Mcp-Name` and the `Mcp-Param-*` headers it
//!   asks for included), and every response to an allowed origin carries
//!   `Access-Control-Allow-Origin` and exposes `Mcp-Session-Id`.
//! * **DELETE.** rmcp answers a session's termination with 202 Accepted; the session is gone
//!   by then, so the answer is 204 No Content (clients such as the Python SDK count only 200
//!   and 204 as success).
//! * **Probes.** `GET /livez` (and `/healthz`) and `GET /readyz` beside `/mcp` (see
//!   [`probes`]).
//! * **Sessions.** With `[store]` on PostgreSQL, sessions of earlier-revision clients are
//!   kept in the database ([`PostgresSessions`]), so any host can serve any of them, and a
//!   cancel that reaches another host than the call's is passed on ([`RemoteCancels`]).

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use http::{HeaderValue, Method, StatusCode, header};

/// An origin pattern: `scheme://host[:port]`, the port `*` for any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OriginPattern {
    scheme: String,
    host: String,
    /// `None`: any port.
    port: Option<u16>,
}

/// An allowed origin that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid allowed origin {given:?}: {reason} (expected scheme://host[:port], port * for any)"
)]
pub struct OriginError {
    /// The entry given.
    pub given: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

impl OriginPattern {
    /// Parses `scheme://host[:port]`; the port `*` matches any, no port the scheme's default.
    pub fn parse(given: &str) -> Result<OriginPattern, OriginError> {
        let fail = |reason| OriginError {
            given: given.to_owned(),
            reason,
        };
        let (scheme, rest) = given.split_once("://").ok_or_else(|| fail("no scheme"))?;
        let scheme = scheme.to_ascii_lowercase();
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        if scheme.is_empty() {
            return Err(fail("no scheme"));
        }
        if rest.contains('/') {
            return Err(fail("an origin has no path"));
        }
        let (host, port) = match rest.rsplit_once(':') {
            Some((host, port)) if !port.contains(']') => (host, Some(port)),
            _ => (rest, None),
        };
        let host = host.trim_start_matches('[').trim_end_matches(']');
        if host.is_empty() {
            return Err(fail("no host"));
        }
        let port = match port {
            Some("*") => None,
            Some(port) => Some(port.parse().map_err(|_| fail("bad port"))?),
            None => Some(
                default_port(&scheme)
                    .ok_or_else(|| fail("no port and no default port for the scheme"))?,
            ),
        };
        Ok(OriginPattern {
            scheme,
            host: host.to_ascii_lowercase(),
            port,
        })
    }

    pub(crate) fn matches(&self, origin: &OriginPattern) -> bool {
        self.scheme == origin.scheme
            && self.host == origin.host
            && (self.port.is_none() || self.port == origin.port)
    }
}

fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    }
}

/// The origins the front accepts, and whether it answers CORS.
#[derive(Debug, Clone)]
pub struct OriginPolicy {
    allowed: Vec<OriginPattern>,
    cors: bool,
}

impl OriginPolicy {
    /// Loopback origins, the origins of `bound` (when it is not a wildcard), and `extra`
    /// (which also turns CORS on).
    pub fn new(bound: Option<SocketAddr>, extra: &[String]) -> Result<OriginPolicy, OriginError> {
        let mut allowed = Vec::new();
        for scheme in ["http", "https"] {
            for host in ["localhost", "127.0.0.1", "::1"] {
                allowed.push(OriginPattern {
                    scheme: scheme.to_owned(),
                    host: host.to_owned(),
                    port: None,
                });
            }
            if let Some(addr) = bound.filter(|addr| !addr.ip().is_unspecified()) {
                allowed.push(OriginPattern {
                    scheme: scheme.to_owned(),
                    host: addr.ip().to_string(),
                    port: Some(addr.port()),
                });
            }
        }
        for entry in extra {
            allowed.push(OriginPattern::parse(entry)?);
        }
        Ok(OriginPolicy {
            allowed,
            cors: !extra.is_empty(),
        })
    }

    fn allows(&self, origin: &str) -> bool {
        OriginPattern::parse(origin)
            .is_ok_and(|origin| self.allowed.iter().any(|allowed| allowed.matches(&origin)))
    }
}

const ALLOW_METHODS: &str = "GET, POST, DELETE, OPTIONS";
/// The request headers of every revision: the 2025 ones, and 2026-07-28's `Mcp-Method` and
/// `Mcp-Name` (which let a balancer route without reading the body).
const ALLOW_HEADERS: &str = "content-type, accept, authorization, mcp-session-id, \
     mcp-protocol-version, last-event-id, mcp-method, mcp-name";
/// 2026-07-28's `Mcp-Param-{name}` headers mirror chosen request parameters; their names are
/// open-ended, so the ones a preflight asks for are allowed by name (CORS has no prefix
/// wildcard, and `*` would not cover `authorization`).
const PARAM_HEADER_PREFIX: &str = "mcp-param-";
const EXPOSE_HEADERS: &str = "mcp-session-id, mcp-protocol-version";

/// The middleware (`axum::middleware::from_fn_with_state`).
pub async fn guard(
    State(policy): State<Arc<OriginPolicy>>,
    request: Request,
    next: Next,
) -> Response {
    let origin = request.headers().get(header::ORIGIN).cloned();
    if let Some(origin) = &origin {
        let text = origin.to_str().unwrap_or("");
        if !policy.allows(text) {
            tracing::warn!(
                origin = text,
                "MCP HTTP request refused: origin not allowed"
            );
            return plain(
                StatusCode::FORBIDDEN,
                format!(
                    "Forbidden: origin {text:?} is not allowed (allow it with --mcp-allowed-origin)"
                ),
            );
        }
    }
    let cors_origin = origin.filter(|_| policy.cors);
    let requested = request
        .headers()
        .get(header::ACCESS_CONTROL_REQUEST_HEADERS)
        .cloned();
    if request.method() == Method::OPTIONS
        && let Some(origin) = &cors_origin
    {
        let mut response = plain(StatusCode::NO_CONTENT, String::new());
        let headers = response.headers_mut();
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin.clone());
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static(ALLOW_METHODS),
        );
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_HEADERS,
            allow_headers(&requested),
        );
        headers.insert(
            header::ACCESS_CONTROL_MAX_AGE,
            HeaderValue::from_static("600"),
        );
        headers.insert(header::VARY, HeaderValue::from_static("origin"));
        return response;
    }
    let is_delete = request.method() == Method::DELETE;
    let mut response = next.run(request).await;
    if is_delete && response.status() == StatusCode::ACCEPTED {
        *response.status_mut() = StatusCode::NO_CONTENT;
    }
    if let Some(origin) = cors_origin {
        let headers = response.headers_mut();
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        headers.insert(
            header::ACCESS_CONTROL_EXPOSE_HEADERS,
            HeaderValue::from_static(EXPOSE_HEADERS),
        );
        headers.append(header::VARY, HeaderValue::from_static("origin"));
    }
    response
}

/// The preflight's `Access-Control-Allow-Headers`: the fixed list, plus each `Mcp-Param-*`
/// header the preflight asked for (lowercased; any other name it asked for is not added, so
/// the browser refuses a request that would send it).
fn allow_headers(requested: &Option<HeaderValue>) -> HeaderValue {
    let params: Vec<String> = requested
        .as_ref()
        .and_then(|value| value.to_str().ok())
        .into_iter()
        .flat_map(|list| list.split(','))
        .map(|name| name.trim().to_ascii_lowercase())
        .filter(|name| {
            name.len() > PARAM_HEADER_PREFIX.len()
                && name.starts_with(PARAM_HEADER_PREFIX)
                && http::HeaderName::from_bytes(name.as_bytes()).is_ok()
        })
        .collect();
    if params.is_empty() {
        return HeaderValue::from_static(ALLOW_HEADERS);
    }
    let list = format!("{ALLOW_HEADERS}, {}", params.join(", "));
    // Every part is a valid header name, so the list is a valid header value.
    HeaderValue::from_str(&list).unwrap_or(HeaderValue::from_static(ALLOW_HEADERS))
}

fn plain(status: StatusCode, body: String) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    response
}

mod cancels;
pub mod probes;
mod sessions;

pub use cancels::{CANCEL_CHANNEL, CallKey, EARLY_CANCEL_WINDOW, RemoteCancels, TrackedCall};
pub use sessions::{PostgresSessions, SESSION_RETENTION_DAYS};

#[cfg(test)]
mod tests;
