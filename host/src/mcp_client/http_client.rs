//! The HTTP side of remote servers: one reqwest client per connection (connect timeout,
//! safe redirects, TLS), the configured headers, and the Streamable HTTP transport.

use std::collections::HashMap;
use std::sync::Arc;

use reqwest::header::{
    AUTHORIZATION, HeaderMap, HeaderName, HeaderValue, InvalidHeaderName, InvalidHeaderValue,
};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

use super::server_config::{McpAuthorizationMode, McpServerConfig};

/// Why a remote server's HTTP client or headers could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum HttpSetupError {
    /// reqwest could not build the client (its TLS backend, say).
    #[error("cannot build the HTTP client")]
    Client(#[source] reqwest::Error),
    /// A configured header name is not valid.
    #[error("invalid header name {name:?}")]
    HeaderName {
        /// The name as configured.
        name: String,
        /// Why.
        #[source]
        source: InvalidHeaderName,
    },
    /// A configured header value is not valid.
    #[error("invalid value of header {name}")]
    HeaderValue {
        /// The header.
        name: HeaderName,
        /// Why.
        #[source]
        source: InvalidHeaderValue,
    },
    /// The bearer token cannot be sent in a header. Nothing of the token is shown.
    #[error("the bearer token is not a valid header value")]
    BearerToken,
}

/// A client with the server's connect timeout.
pub fn http_client(server: &McpServerConfig) -> Result<reqwest::Client, HttpSetupError> {
    reqwest::Client::builder()
        .connect_timeout(server.http_timeout())
        // As rmcp's default client: pooled idle connections stall on delayed ACKs, and
        // only same-origin 307/308 redirects keep a POST body and its headers safe.
        .pool_max_idle_per_host(0)
        .redirect(same_origin_redirects())
        .build()
        .map_err(HttpSetupError::Client)
}

/// The configured `headers`, plus `Authorization: Bearer <token>` in bearer mode when
/// `with_authorization` is set.
pub fn header_map(
    server: &McpServerConfig,
    with_authorization: bool,
) -> Result<HeaderMap, HttpSetupError> {
    let mut headers = HeaderMap::new();
    for (name, value) in &server.headers {
        let name = HeaderName::from_bytes(name.as_bytes()).map_err(|source| {
            HttpSetupError::HeaderName {
                name: name.clone(),
                source,
            }
        })?;
        let mut value =
            HeaderValue::from_str(value).map_err(|source| HttpSetupError::HeaderValue {
                name: name.clone(),
                source,
            })?;
        // Configured headers often carry API keys: keep them out of any Debug output.
        value.set_sensitive(true);
        headers.insert(name, value);
    }
    if with_authorization && server.authorization.mode == McpAuthorizationMode::Bearer {
        let token = server.authorization.bearer_token.trim();
        let mut value = HeaderValue::from_str(&format!("Bearer {token}"))
            .map_err(|_| HttpSetupError::BearerToken)?;
        value.set_sensitive(true);
        headers.insert(AUTHORIZATION, value);
    }
    Ok(headers)
}

/// The Streamable HTTP transport for `server`.
pub fn streamable_http_transport(
    server: &McpServerConfig,
) -> Result<StreamableHttpClientTransport<reqwest::Client>, HttpSetupError> {
    let headers: HashMap<HeaderName, HeaderValue> = header_map(server, false)?
        .into_iter()
        .filter_map(|(name, value)| Some((name?, value)))
        .collect();
    let mut config =
        StreamableHttpClientTransportConfig::with_uri(Arc::<str>::from(server.url.trim()))
            .custom_headers(headers);
    if server.authorization.mode == McpAuthorizationMode::Bearer {
        // rmcp adds the `Bearer ` prefix itself.
        config = config.auth_header(server.authorization.bearer_token.trim());
    }
    Ok(StreamableHttpClientTransport::with_client(
        http_client(server)?,
        config,
    ))
}

fn same_origin_redirects() -> reqwest::redirect::Policy {
    const MAX_REDIRECTS: usize = 10;
    reqwest::redirect::Policy::custom(|attempt| {
        let keeps_body = matches!(
            attempt.status(),
            reqwest::StatusCode::TEMPORARY_REDIRECT | reqwest::StatusCode::PERMANENT_REDIRECT
        );
        let same_origin = attempt
            .previous()
            .first()
            .is_some_and(|original| original.origin() == attempt.url().origin());
        if !keeps_body || !same_origin {
            attempt.stop()
        } else if attempt.previous().len() > MAX_REDIRECTS {
            attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
        } else {
            attempt.follow()
        }
    })
}

#[cfg(test)]
mod tests;
