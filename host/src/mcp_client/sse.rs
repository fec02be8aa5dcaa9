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

use super::connect::with_sources;
use super::sse_events::{SseEvent, SseParser};

/// How many server messages may wait for the service loop.
const INCOMING_CAPACITY: usize = 64;

/// A failed `POST` of a client message.
#[derive(Debug, thiserror::Error)]
pub enum SseTransportError {
    /// The request could not be sent.
    #[error("POST {url}: {message}")]
    Request {
        /// The endpoint.
        url: Url,
        /// The cause, with its sources.
        message: String,
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
    #[error("cannot encode a message: {0}")]
    Encode(String),
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
    pub async fn connect(client: Client, url: &str, headers: HeaderMap) -> Result<Self, String> {
        let url = Url::parse(url).map_err(|err| format!("invalid url {url:?}: {err}"))?;
        let response = client
            .get(url.clone())
            .headers(headers.clone())
            .header(ACCEPT, HeaderValue::from_static("text/event-stream"))
            .send()
            .await
            .map_err(|err| format!("GET {url}: {}", with_sources(&err)))?;
        let status = response.status();
        if !status.is_success() {
            return Err(format!("GET {url} answered HTTP {}", status.as_u16()));
        }
        let mut events = EventStream {
            body: Box::pin(response.bytes_stream()),
            parser: SseParser::default(),
            ready: Vec::new(),
        };
        let endpoint = loop {
            match events.next().await {
                Some(Ok(event)) if event.event == "endpoint" => {
                    break url.join(event.data.trim()).map_err(|err| {
                        format!("invalid endpoint {:?} from the server: {err}", event.data)
                    })?;
                }
                Some(Ok(event)) => {
                    tracing::debug!(event = %event.event, "SSE event before the endpoint ignored");
                }
                Some(Err(err)) => return Err(err),
                None => return Err("the event stream ended before the endpoint event".to_owned()),
            }
        };
        if endpoint.origin() != url.origin() {
            return Err(format!(
                "the server's endpoint {endpoint} is not on the origin of {url}"
            ));
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
            let body = serde_json::to_vec(&item)
                .map_err(|err| SseTransportError::Encode(err.to_string()))?;
            let _order = lock.lock().await;
            let response = client
                .post(url.clone())
                .headers(headers)
                .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
                .body(body)
                .send()
                .await
                .map_err(|err| SseTransportError::Request {
                    url: url.clone(),
                    message: with_sources(&err),
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
    async fn next(&mut self) -> Option<Result<SseEvent, String>> {
        loop {
            if !self.ready.is_empty() {
                return Some(Ok(self.ready.remove(0)));
            }
            match self.body.next().await? {
                Ok(bytes) => {
                    if let Err(err) = self.parser.feed(&bytes, &mut self.ready) {
                        return Some(Err(err));
                    }
                }
                Err(err) => {
                    return Some(Err(format!("event stream failed: {}", with_sources(&err))));
                }
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
                tracing::warn!("MCP SSE stream failed: {err}");
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
