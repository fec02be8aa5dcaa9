//! The legacy HTTP+SSE transport (MCP 2024-11-05), which rmcp 3.11 does not ship: a
//! `GET` opens an event stream whose first `endpoint` event names the URL to `POST`
//! messages to; the server's messages arrive as `message` events.

use std::sync::Arc;

use futures::StreamExt;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue};
use reqwest::{Client, Url};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::service::RoleClient;
use rmcp::transport::Transport;
use tokio::sync::{Mutex, mpsc};
use tokio::task::JoinHandle;

use super::sse_events::{EventTooLarge, SseEvent, SseParser};

/// How many server messages may wait for the service loop.
const INCOMING_CAPACITY: usize = 64;

/// url's parse error, named through reqwest's re-export of `Url` (url is no direct dependency).
type UrlParseError = <Url as std::str::FromStr>::Err;

/// Why an SSE session could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum SseConnectError {
    /// The configured URL does not parse.
    #[error("invalid url {url:?}")]
    Url {
        /// The URL as configured.
        url: String,
        /// Why.
        #[source]
        source: UrlParseError,
    },
    /// The `GET` of the event stream could not be sent.
    #[error("GET {url}")]
    Request {
        /// The stream's URL.
        url: Url,
        /// Why (a refused connection, a TLS failure, ...).
        #[source]
        source: reqwest::Error,
    },
    /// The server refused the `GET`.
    #[error("GET {url} answered HTTP {status}")]
    Status {
        /// The stream's URL.
        url: Url,
        /// The status code.
        status: u16,
    },
    /// The stream failed before its `endpoint` event.
    #[error(transparent)]
    Stream(#[from] SseStreamError),
    /// The stream ended before its `endpoint` event.
    #[error("the event stream ended before the endpoint event")]
    NoEndpoint,
    /// The `endpoint` event does not hold a URL.
    #[error("invalid endpoint {endpoint:?} from the server")]
    Endpoint {
        /// The event's data.
        endpoint: String,
        /// Why.
        #[source]
        source: UrlParseError,
    },
    /// The endpoint is on another origin, which would receive the configured headers.
    #[error("the server's endpoint {endpoint} is not on the origin of {url}")]
    CrossOrigin {
        /// The endpoint.
        endpoint: Url,
        /// The stream's URL.
        url: Url,
    },
}

/// Why an open event stream ended in error.
#[derive(Debug, thiserror::Error)]
pub enum SseStreamError {
    /// Reading the body failed.
    #[error("event stream failed")]
    Body(#[source] reqwest::Error),
    /// An event was too large.
    #[error(transparent)]
    TooLarge(#[from] EventTooLarge),
}

/// A failed `POST` of a client message.
#[derive(Debug, thiserror::Error)]
pub enum SseTransportError {
    /// The request could not be sent.
    #[error("POST {url}")]
    Request {
        /// The endpoint.
        url: Url,
        /// Why.
        #[source]
        source: reqwest::Error,
    },
    /// The server refused it.
    #[error("POST {url} answered HTTP {status}")]
    Status {
        /// The endpoint.
        url: Url,
        /// The status code.
        status: u16,
    },
    /// The message could not be encoded.
    #[error("cannot encode a message")]
    Encode(#[source] serde_json::Error),
}

/// A connected SSE session.
#[derive(Debug)]
pub struct SseTransport {
    client: Client,
    headers: HeaderMap,
    endpoint: Url,
    incoming: mpsc::Receiver<ServerJsonRpcMessage>,
    reader: JoinHandle<()>,
    /// POSTs go one at a time, so the server sees messages in the order they were sent.
    post_lock: Arc<Mutex<()>>,
}

impl SseTransport {
    /// Opens the event stream at `url` and waits for the `endpoint` event. The endpoint
    /// must have the stream's origin, so headers and tokens never go to another host.
    pub async fn connect(
        client: Client,
        url: &str,
        headers: HeaderMap,
    ) -> Result<Self, SseConnectError> {
        let url = Url::parse(url).map_err(|source| SseConnectError::Url {
            url: url.to_owned(),
            source,
        })?;
        let response = client
            .get(url.clone())
            .headers(headers.clone())
            .header(ACCEPT, HeaderValue::from_static("text/event-stream"))
            .send()
            .await
            .map_err(|source| SseConnectError::Request {
                url: url.clone(),
                source,
            })?;
        let status = response.status();
        if !status.is_success() {
            return Err(SseConnectError::Status {
                url,
                status: status.as_u16(),
            });
        }
        let mut events = EventStream {
            body: Box::pin(response.bytes_stream()),
            parser: SseParser::default(),
            ready: Vec::new(),
        };
        let endpoint = loop {
            match events.next().await {
                Some(Ok(event)) if event.event == "endpoint" => {
                    break url.join(event.data.trim()).map_err(|source| {
                        SseConnectError::Endpoint {
                            endpoint: event.data.clone(),
                            source,
                        }
                    })?;
                }
                Some(Ok(event)) => {
                    tracing::debug!(event = %event.event, "SSE event before the endpoint ignored");
                }
                Some(Err(err)) => return Err(err.into()),
                None => return Err(SseConnectError::NoEndpoint),
            }
        };
        if endpoint.origin() != url.origin() {
            return Err(SseConnectError::CrossOrigin { endpoint, url });
        }
        let (sender, incoming) = mpsc::channel(INCOMING_CAPACITY);
        let reader = tokio::spawn(forward_messages(events, sender));
        Ok(Self {
            client,
            headers,
            endpoint,
            incoming,
            reader,
            post_lock: Arc::new(Mutex::new(())),
        })
    }
}

impl Drop for SseTransport {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

impl Transport<RoleClient> for SseTransport {
    type Error = SseTransportError;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let client = self.client.clone();
        let headers = self.headers.clone();
        let url = self.endpoint.clone();
        let lock = self.post_lock.clone();
        async move {
            let body = serde_json::to_vec(&item).map_err(SseTransportError::Encode)?;
            let _order = lock.lock().await;
            let response = client
                .post(url.clone())
                .headers(headers)
                .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
                .body(body)
                .send()
                .await
                .map_err(|source| SseTransportError::Request {
                    url: url.clone(),
                    source,
                })?;
            let status = response.status();
            if status.is_success() {
                Ok(())
            } else {
                Err(SseTransportError::Status {
                    url,
                    status: status.as_u16(),
                })
            }
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<ServerJsonRpcMessage>> + Send {
        self.incoming.recv()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        // Ending the GET ends the session on the server.
        self.reader.abort();
        self.incoming.close();
        Ok(())
    }
}

type ByteStream =
    std::pin::Pin<Box<dyn futures::Stream<Item = reqwest::Result<bytes::Bytes>> + Send>>;

struct EventStream {
    body: ByteStream,
    parser: SseParser,
    ready: Vec<SseEvent>,
}

impl EventStream {
    async fn next(&mut self) -> Option<Result<SseEvent, SseStreamError>> {
        loop {
            if !self.ready.is_empty() {
                return Some(Ok(self.ready.remove(0)));
            }
            match self.body.next().await? {
                Ok(bytes) => {
                    if let Err(err) = self.parser.feed(&bytes, &mut self.ready) {
                        return Some(Err(err.into()));
                    }
                }
                Err(err) => return Some(Err(SseStreamError::Body(err))),
            }
        }
    }
}

/// Moves `message` events into the channel until the stream ends, which the service loop
/// then sees as a closed transport.
async fn forward_messages(mut events: EventStream, sender: mpsc::Sender<ServerJsonRpcMessage>) {
    while let Some(event) = events.next().await {
        let event = match event {
            Ok(event) => event,
            Err(err) => {
                tracing::warn!("MCP SSE stream failed: {}", crate::error_text::chain(&err));
                break;
            }
        };
        if event.event != "message" {
            tracing::debug!(event = %event.event, "SSE event ignored");
            continue;
        }
        match serde_json::from_str::<ServerJsonRpcMessage>(&event.data) {
            Ok(message) => {
                if sender.send(message).await.is_err() {
                    break;
                }
            }
            Err(err) => tracing::warn!("MCP SSE message is not JSON-RPC: {err}"),
        }
    }
}

#[cfg(test)]
mod tests;
