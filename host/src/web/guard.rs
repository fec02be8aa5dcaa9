//! Who may use the console, checked on every request before any handler:
//!
//! * **Host.** A console bound to loopback answers only requests addressed to a loopback name
//!   (`localhost`, `127.0.0.1`, `[::1]`): a page on another site that rebinds its DNS name to
//!   127.0.0.1 cannot read it.
//! * **Origin.** Every request that changes something (anything but `GET`/`HEAD`) from a
//!   browser must come from the console's own origin or one `[web] allowed_origins` names; a
//!   cross-site one (`Origin` elsewhere, or `Sec-Fetch-Site: cross-site`) is refused with 403
//!   before it does anything. A client that is not a browser sends neither and passes.
//! * **Token.** With `[web] token` set, every request but the login page and the static files
//!   carries it: the session cookie the login sets, or `Authorization: Bearer TOKEN`.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::mcp_server::http::{OriginError, OriginPattern};

/// The session cookie's name.
pub(super) const COOKIE: &str = "maitool_console";

/// The console's access rules.
#[derive(Debug)]
pub(super) struct Guard {
    token: Option<String>,
    origins: Vec<OriginPattern>,
    loopback: bool,
}

impl Guard {
    /// The rules of a console bound at `bound`.
    pub(super) fn new(
        bound: SocketAddr,
        token: Option<String>,
        extra_origins: &[String],
    ) -> Result<Guard, OriginError> {
        let mut origins = Vec::new();
        let port = bound.port();
        if bound.ip().is_loopback() {
            for host in ["localhost", "127.0.0.1", "[::1]"] {
                origins.push(OriginPattern::parse(&format!("http://{host}:{port}"))?);
            }
        } else if !bound.ip().is_unspecified() {
            origins.push(OriginPattern::parse(&format!("http://{bound}"))?);
        }
        for origin in extra_origins {
            origins.push(OriginPattern::parse(origin)?);
        }
        Ok(Guard {
            token,
            origins,
            loopback: bound.ip().is_loopback(),
        })
    }

    /// Whether a token is required.
    pub(super) fn has_token(&self) -> bool {
        self.token.is_some()
    }

    /// Whether `given` is the token (compared in constant time).
    pub(super) fn token_matches(&self, given: &str) -> bool {
        self.token.as_deref().is_some_and(|token| {
            token.len() == given.len()
                && token
                    .bytes()
                    .zip(given.bytes())
                    .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                    == 0
        })
    }

    fn host_allowed(&self, headers: &HeaderMap) -> bool {
        if !self.loopback {
            return true;
        }
        let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
            return false;
        };
        let name = match host.rsplit_once(':') {
            Some((name, port)) if !port.contains(']') => name,
            _ => host,
        };
        matches!(name, "localhost" | "127.0.0.1" | "[::1]")
    }

    /// Why a state-changing request is refused, if it is.
    fn origin_problem(&self, headers: &HeaderMap) -> Option<String> {
        if let Some(origin) = headers.get(header::ORIGIN) {
            let text = origin.to_str().unwrap_or_default();
            let allowed = OriginPattern::parse(text)
                .is_ok_and(|origin| self.origins.iter().any(|allowed| allowed.matches(&origin)));
            return (!allowed).then(|| format!("origin {text:?} may not change this console"));
        }
        let site = headers
            .get("sec-fetch-site")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        (site == "cross-site").then(|| "a cross-site request may not change this console".into())
    }

    fn authenticated(&self, headers: &HeaderMap) -> bool {
        if self.token.is_none() {
            return true;
        }
        let bearer = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        if bearer.is_some_and(|given| self.token_matches(given)) {
            return true;
        }
        headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .any(|(name, value)| name == COOKIE && self.token_matches(value))
    }
}

/// The middleware (`axum::middleware::from_fn_with_state`).
pub(super) async fn check(
    State(guard): State<Arc<Guard>>,
    request: Request,
    next: Next,
) -> Response {
    let headers = request.headers();
    if !guard.host_allowed(headers) {
        return (
            StatusCode::MISDIRECTED_REQUEST,
            "this console answers loopback names only",
        )
            .into_response();
    }
    let changes = !matches!(*request.method(), Method::GET | Method::HEAD);
    if changes && let Some(problem) = guard.origin_problem(headers) {
        tracing::warn!("web console refused a request: {problem}");
        return (StatusCode::FORBIDDEN, problem).into_response();
    }
    let path = request.uri().path();
    let open = path == "/login" || path.starts_with("/assets/");
    if !open && !guard.authenticated(headers) {
        if request.method() == Method::GET && !path.ends_with("/events") {
            return (StatusCode::UNAUTHORIZED, super::pages::login(None)).into_response();
        }
        return (StatusCode::UNAUTHORIZED, "log in first").into_response();
    }
    next.run(request).await
}

#[cfg(test)]
mod tests;
