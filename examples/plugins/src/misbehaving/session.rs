//! A runner that speaks the wire protocol by hand, with blocking std I/O: it can do what the
//! SDK never would (flood, stop reading, send crafted bytes) after a real handshake.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use maitool_protocol::wire::methods::{
    AckPayload, ComponentDeclaration, HealthPayload, HelloPayload, RegisterComponentsPayload,
    RunnerReadyPayload, names,
};
use maitool_protocol::wire::{
    EnvelopeHeader, MessageType, decode_header, encode_envelope, encode_response_raw,
};
use maitool_sdk::serde::Serialize;
use maitool_sdk::{JsonObject, Value};

/// The write half, shared by a flooding thread and the thread answering health checks.
#[derive(Clone)]
pub struct Writer {
    stream: Arc<Mutex<UnixStream>>,
    next_id: Arc<AtomicU64>,
}

impl Writer {
    /// Writes one frame (length prefix and body).
    pub fn frame(&self, body: &[u8]) -> std::io::Result<()> {
        let mut bytes = Vec::with_capacity(body.len() + 4);
        bytes.extend_from_slice(&(body.len() as u32).to_be_bytes());
        bytes.extend_from_slice(body);
        self.raw(&bytes)
    }

    /// Writes bytes as they are: a broken length prefix, half a frame.
    pub fn raw(&self, bytes: &[u8]) -> std::io::Result<()> {
        let mut stream = self.stream.lock().unwrap_or_else(|p| p.into_inner());
        stream.write_all(bytes)
    }

    /// Sends a request and returns its id.
    pub fn request<P: Serialize>(
        &self,
        method: &str,
        plugin: &str,
        payload: &P,
    ) -> std::io::Result<u64> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let envelope =
            maitool_protocol::wire::Envelope::request(id, method, plugin, 10_000, payload);
        let body = encode_envelope(&envelope).map_err(std::io::Error::other)?;
        self.frame(&body)?;
        Ok(id)
    }

    /// Answers `request` with a payload that is already MessagePack (crafted or encoded).
    pub fn answer_raw(&self, request: &EnvelopeHeader, payload: &[u8]) -> std::io::Result<()> {
        let body = encode_response_raw(request, payload).map_err(std::io::Error::other)?;
        self.frame(&body)
    }

    /// Answers `request` with a payload value.
    pub fn answer<P: Serialize>(
        &self,
        request: &EnvelopeHeader,
        payload: &P,
    ) -> std::io::Result<()> {
        let envelope = maitool_protocol::wire::Envelope::response_to(request, payload);
        let body = encode_envelope(&envelope).map_err(std::io::Error::other)?;
        self.frame(&body)
    }
}

/// A handshaken connection: registered plugin, ready reported.
pub struct Session {
    /// The read half.
    pub reader: UnixStream,
    /// The write half.
    pub writer: Writer,
}

/// One tool to declare, with its per-call timeout (0: the host's default).
pub struct ToolDecl {
    /// The tool's name.
    pub name: &'static str,
    /// The host's limit for one call, in milliseconds.
    pub timeout_ms: u64,
}

impl Session {
    /// Connects, says hello with `token`, registers `plugin` with `tools` and reports ready.
    pub fn establish(
        address: &str,
        token: &str,
        plugin: &str,
        tools: &[ToolDecl],
    ) -> Result<Session, String> {
        let stream = UnixStream::connect(address).map_err(|e| format!("cannot connect: {e}"))?;
        let reader = stream.try_clone().map_err(|e| e.to_string())?;
        let mut session = Session {
            reader,
            writer: Writer {
                stream: Arc::new(Mutex::new(stream)),
                next_id: Arc::new(AtomicU64::new(1)),
            },
        };
        let hello = HelloPayload {
            runner_id: "misbehaving-raw".into(),
            sdk_version: "1.0.0".into(),
            session_token: token.into(),
            protocol_versions: vec!["1.0.0".into()],
            pid: std::process::id(),
            reads_context: false,
            ..Default::default()
        };
        session.call(names::HELLO, "", &hello)?;
        let components = tools
            .iter()
            .map(|tool| {
                let mut metadata = JsonObject::new();
                metadata.insert("description".into(), "a raw tool".into());
                if tool.timeout_ms > 0 {
                    metadata.insert("timeout_ms".into(), Value::from(tool.timeout_ms));
                }
                ComponentDeclaration {
                    name: tool.name.into(),
                    component_type: "TOOL".into(),
                    plugin_id: plugin.into(),
                    metadata,
                    ..ComponentDeclaration::default()
                }
            })
            .collect();
        let register = RegisterComponentsPayload {
            plugin_id: plugin.into(),
            components,
            ..RegisterComponentsPayload::default()
        };
        session.call(names::REGISTER_COMPONENTS, plugin, &register)?;
        let ready = RunnerReadyPayload {
            loaded_plugins: vec![plugin.into()],
            ..RunnerReadyPayload::default()
        };
        session.call(names::READY, "", &ready)?;
        Ok(session)
    }

    /// A second handle on the same connection (for a reading thread).
    pub fn clone_halves(&self) -> Result<Session, String> {
        Ok(Session {
            reader: self.reader.try_clone().map_err(|e| e.to_string())?,
            writer: self.writer.clone(),
        })
    }

    /// Sends a request and reads until its response, answering health checks meanwhile.
    fn call<P: Serialize>(
        &mut self,
        method: &str,
        plugin: &str,
        payload: &P,
    ) -> Result<(), String> {
        let id = self
            .writer
            .request(method, plugin, payload)
            .map_err(|e| format!("{method}: write failed: {e}"))?;
        self.reader
            .set_read_timeout(Some(Duration::from_secs(15)))
            .map_err(|e| e.to_string())?;
        loop {
            let (header, _) = self.next_frame().map_err(|e| format!("{method}: {e}"))?;
            if header.message_type == MessageType::Response && header.request_id == id {
                return match header.error {
                    Some(error) => Err(format!(
                        "{method}: error {}: {}",
                        error.code.as_str(),
                        error.message
                    )),
                    None => Ok(()),
                };
            }
            self.answer_routine(&header);
        }
    }

    /// Reads the next frame and decodes its header.
    pub fn next_frame(&mut self) -> Result<(EnvelopeHeader, Vec<u8>), String> {
        let body = read_frame(&mut self.reader)?;
        let header = decode_header(&body).map_err(|e| format!("undecodable frame: {e}"))?;
        Ok((header, body))
    }

    /// Answers the host's routine requests (health, shutdown); true if it was one.
    pub fn answer_routine(&self, header: &EnvelopeHeader) -> bool {
        answer_routine(&self.writer, header)
    }
}

/// Answers health checks and the shutdown sequence; true if `header` was one of those.
pub fn answer_routine(writer: &Writer, header: &EnvelopeHeader) -> bool {
    if header.message_type != MessageType::Request {
        return false;
    }
    let _ = match &*header.method {
        names::HEALTH => writer.answer(
            header,
            &HealthPayload {
                healthy: true,
                ..HealthPayload::default()
            },
        ),
        names::PREPARE_SHUTDOWN => writer.answer(header, &AckPayload::default()),
        names::SHUTDOWN => {
            let _ = writer.answer(header, &AckPayload::default());
            std::process::exit(0);
        }
        _ => return false,
    };
    true
}

/// Reads one frame body (at most the 16 MiB limit the host itself keeps to).
pub fn read_frame(stream: &mut UnixStream) -> Result<Vec<u8>, String> {
    let mut len = [0u8; 4];
    stream
        .read_exact(&mut len)
        .map_err(|e| format!("connection closed ({e})"))?;
    let len = u32::from_be_bytes(len) as usize;
    if len > maitool_protocol::wire::MAX_FRAME_LEN {
        return Err(format!("the host announced a {len}-byte frame"));
    }
    let mut body = vec![0u8; len];
    stream
        .read_exact(&mut body)
        .map_err(|e| format!("truncated frame ({e})"))?;
    Ok(body)
}
