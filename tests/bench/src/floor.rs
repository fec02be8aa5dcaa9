//! Section 1, the floor: a raw length-prefixed MessagePack ping-pong with a second process
//! over a Unix socket, with frames of exactly the sizes a real `plugin.invoke_tool` request
//! and its response have. Everything maitool adds (envelope, registry, provider, RPC
//! multiplexing, the runner's dispatch and the SDK) is measured against this.
//!
//! The server is this executable re-run with `--floor-server`; it connects back to a socket
//! the benchmark listens on, as a runner does, and runs on a current-thread runtime, as a
//! runner does. Both sides batch writes the way the RPC peer does: every frame already
//! available is fed, and the buffer is flushed once when nothing more is ready.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use bytes::Bytes;
use futures::{FutureExt, SinkExt, StreamExt};
use maitool_protocol::rpc::Payload;
use maitool_protocol::wire::methods::{InvokePayload, InvokeResultPayload, names};
use maitool_protocol::wire::{
    Envelope, EnvelopeHeader, MessageType, PROTOCOL_VERSION, encode_envelope, encode_response_raw,
    frame_codec,
};
use maitool_protocol::{JsonObject, ToolExecutionContext, ToolExecutionResult};
use serde::{Deserialize, Serialize};
use tokio::net::{UnixListener, UnixStream};
use tokio_util::codec::{Framed, LengthDelimitedCodec};

use crate::procs::ChildGuard;

/// The floor's request: a named-field map with a dynamic `arguments` object, as a host
/// would carry it; `pad` brings it to the real request's size.
#[derive(Debug, Serialize, Deserialize)]
struct FloorRequest {
    id: u64,
    method: String,
    params: FloorParams,
}

#[derive(Debug, Serialize, Deserialize)]
struct FloorParams {
    tool_name: String,
    arguments: JsonObject,
    session_id: String,
    stream_id: String,
    pad: String,
}

#[derive(Debug, Serialize, Deserialize)]
struct FloorResponse {
    id: u64,
    result: FloorResult,
}

#[derive(Debug, Serialize, Deserialize)]
struct FloorResult {
    success: bool,
    content: String,
    pad: String,
}

/// The execution context every benchmark call carries.
pub fn bench_context() -> ToolExecutionContext {
    ToolExecutionContext {
        session_id: "s1".into(),
        stream_id: "st1".into(),
        ..ToolExecutionContext::default()
    }
}

/// The arguments of every echo call.
pub fn echo_arguments() -> JsonObject {
    let mut arguments = JsonObject::new();
    arguments.insert("text".into(), "hello".into());
    arguments
}

/// Frame body sizes (without the 4-byte prefix) of a real echo invocation: the envelope the
/// plugin provider sends, and the one the runner answers with, built from the same values.
pub fn invocation_frame_sizes() -> Result<(usize, usize)> {
    let ctx = bench_context();
    let mut args = echo_arguments();
    // The provider fills the MaiBot context keys it has values for.
    args.insert("stream_id".into(), "st1".into());
    args.insert("chat_id".into(), "st1".into());
    let payload = InvokePayload {
        component_name: "echo".into(),
        args,
        context: Some(ctx),
        call_id: String::new(),
    };
    let request = encode_envelope(&Envelope::request(
        1_000_000,
        names::INVOKE_TOOL,
        "bench.echo",
        60_000,
        payload,
    ))?;
    let header = EnvelopeHeader {
        protocol_version: PROTOCOL_VERSION.to_owned(),
        request_id: 1_000_000,
        message_type: MessageType::Request,
        method: names::INVOKE_TOOL.to_owned(),
        plugin_id: "bench.echo".to_owned(),
        timestamp_ms: 0,
        timeout_ms: 60_000,
        error: None,
    };
    let result = ToolExecutionResult::success("echo", "hello");
    let answer = Payload::encode(&InvokeResultPayload {
        success: true,
        result: None,
        tool_result: Some(result),
    })
    .map_err(|err| anyhow::anyhow!("{err}"))?;
    let response = encode_response_raw(&header, answer.as_bytes())?;
    Ok((request.len(), response.len()))
}

/// The longest pad that keeps `encode(pad)` at most `target` bytes (MessagePack string
/// headers grow at 32 and 256 bytes, so the size is searched, not computed).
fn pad_for(target: usize, encode: impl Fn(&str) -> Result<Vec<u8>>) -> Result<String> {
    let base = encode("")?.len();
    if base >= target {
        return Ok(String::new());
    }
    let mut len = target - base;
    loop {
        let pad = "x".repeat(len);
        if encode(&pad)?.len() <= target || len == 0 {
            return Ok(pad);
        }
        len -= 1;
    }
}

fn request_bytes(id: u64, pad: &str) -> Result<Vec<u8>> {
    let request = FloorRequest {
        id,
        method: "invoke".into(),
        params: FloorParams {
            tool_name: "echo".into(),
            arguments: echo_arguments(),
            session_id: "s1".into(),
            stream_id: "st1".into(),
            pad: pad.to_owned(),
        },
    };
    Ok(rmp_serde::to_vec_named(&request)?)
}

fn response_bytes(id: u64, content: String, pad: &str) -> Result<Vec<u8>> {
    let response = FloorResponse {
        id,
        result: FloorResult {
            success: true,
            content,
            pad: pad.to_owned(),
        },
    };
    Ok(rmp_serde::to_vec_named(&response)?)
}

/// A connected floor client and its server process.
pub struct Floor {
    framed: Framed<UnixStream, LengthDelimitedCodec>,
    pad: String,
    next_id: u64,
    /// Request and response body sizes on the wire.
    pub sizes: (usize, usize),
    server: ChildGuard,
    _dir: tempfile::TempDir,
}

impl std::fmt::Debug for Floor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Floor")
            .field("sizes", &self.sizes)
            .finish_non_exhaustive()
    }
}

impl Floor {
    /// Starts the server process and connects to it; frames are sized like `sizes`.
    pub async fn start(sizes: (usize, usize)) -> Result<Floor> {
        let dir = tempfile::Builder::new()
            .prefix("maitool-bench-floor")
            .tempdir()?;
        let path = dir.path().join("floor.sock");
        let listener = UnixListener::bind(&path).context("cannot bind the floor socket")?;
        let mut command = Command::new(std::env::current_exe()?);
        command
            .arg("--floor-server")
            .arg(&path)
            .arg("--response-bytes")
            .arg(sizes.1.to_string());
        let server = ChildGuard::spawn(command, "the floor server")?;
        let (stream, _) = tokio::time::timeout(Duration::from_secs(10), listener.accept())
            .await
            .context("the floor server did not connect within 10 s")??;
        let pad = pad_for(sizes.0, |pad| request_bytes(1_000_000, pad))?;
        let measured = (request_bytes(1_000_000, &pad)?.len(), sizes.1);
        Ok(Floor {
            framed: Framed::new(stream, frame_codec()),
            pad,
            next_id: 1,
            sizes: measured,
            server,
            _dir: dir,
        })
    }

    /// The server process's pid.
    pub fn server_pid(&self) -> u32 {
        self.server.pid()
    }

    fn request(&mut self) -> Result<Bytes> {
        // Ids grow like the RPC peer's, so encoded sizes match a long-running host.
        let id = 1_000_000 + self.next_id;
        self.next_id += 1;
        Ok(Bytes::from(request_bytes(id, &self.pad)?))
    }

    fn check(frame: &[u8]) -> Result<()> {
        let response: FloorResponse = rmp_serde::from_slice(frame)?;
        if !response.result.success || response.result.content != "hello" {
            bail!("the floor server answered {response:?}");
        }
        Ok(())
    }

    async fn receive(&mut self) -> Result<()> {
        let frame = self
            .framed
            .next()
            .await
            .context("the floor server closed the connection")??;
        Self::check(&frame)
    }

    /// `count` sequential round trips, one in flight; the latency of each.
    pub async fn sequential(&mut self, count: usize, samples: &mut Vec<Duration>) -> Result<()> {
        for _ in 0..count {
            let started = Instant::now();
            let request = self.request()?;
            self.framed.send(request).await?;
            self.receive().await?;
            samples.push(started.elapsed());
        }
        Ok(())
    }

    /// `total` calls with at most `window` in flight; calls per second.
    pub async fn pipelined(&mut self, window: usize, total: usize) -> Result<f64> {
        let started = Instant::now();
        let (mut sent, mut received) = (0usize, 0usize);
        while received < total {
            while sent < total && sent - received < window {
                let request = self.request()?;
                self.framed.feed(request).await?;
                sent += 1;
            }
            SinkExt::<Bytes>::flush(&mut self.framed).await?;
            self.receive().await?;
            received += 1;
            // Everything already buffered is consumed before the next write batch.
            while let Some(Some(frame)) = self.framed.next().now_or_never() {
                Self::check(&frame?)?;
                received += 1;
            }
        }
        Ok(total as f64 / started.elapsed().as_secs_f64())
    }
}

/// The `--floor-server` mode: answers every request until the client goes away.
pub fn serve(socket: &Path, response_bytes: usize) -> Result<()> {
    crate::procs::die_with_parent();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let stream = UnixStream::connect(socket)
            .await
            .with_context(|| format!("cannot connect to {}", socket.display()))?;
        let mut framed = Framed::new(stream, frame_codec());
        let pad = pad_for(response_bytes, response_bytes_for)?;
        loop {
            let Some(frame) = framed.next().await else {
                return Ok(());
            };
            framed.feed(answer(&frame?, &pad)?).await?;
            while let Some(Some(frame)) = framed.next().now_or_never() {
                framed.feed(answer(&frame?, &pad)?).await?;
            }
            SinkExt::<Bytes>::flush(&mut framed).await?;
        }
    })
}

fn response_bytes_for(pad: &str) -> Result<Vec<u8>> {
    response_bytes(1_000_000, "hello".into(), pad)
}

fn answer(frame: &[u8], pad: &str) -> Result<Bytes> {
    let request: FloorRequest = rmp_serde::from_slice(frame)?;
    let text = request
        .params
        .arguments
        .get("text")
        .and_then(|v| v.as_str())
        .unwrap_or_default()
        .to_owned();
    Ok(Bytes::from(response_bytes(request.id, text, pad)?))
}
