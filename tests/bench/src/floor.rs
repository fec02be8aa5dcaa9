//! Section 1, the floor: a raw length-prefixed MessagePack ping-pong with a second process
//! over a Unix socket, with frames of exactly the sizes a real `plugin.invoke_tool` request
//! and its response have. Everything maitool adds (envelope, registry, provider, RPC
//! multiplexing, the runner's dispatch and the SDK) is measured against this.
//!
//! The server is `maitool-bench-floor`: it connects back to a socket the benchmark listens on,
//! runs on a current-thread runtime and the system allocator, as a runner does. The client is
//! this process, on the host's runtime and allocator, as the host is. Both sides batch writes
//! the way the RPC peer does: every frame already available is fed, and the buffer is flushed
//! once when nothing more is ready.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use bytes::Bytes;
use futures::{FutureExt, SinkExt, StreamExt};
use maitool_protocol::rpc::Payload;
use maitool_protocol::wire::methods::{InvokePayload, InvokeResultPayload, names};
use maitool_protocol::wire::{
    ByteString, Envelope, EnvelopeHeader, MessageType, PROTOCOL_VERSION, encode_envelope,
    encode_response_raw, frame_codec,
};
use maitool_protocol::{JsonObject, ToolExecutionContext, ToolExecutionResult};
use tokio::net::{UnixListener, UnixStream};
use tokio_util::codec::{Framed, LengthDelimitedCodec};

use crate::floor_wire::{FloorParams, FloorRequest, FloorResponse, pad_for};
use crate::procs::ChildGuard;

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
        protocol_version: ByteString::from_static(PROTOCOL_VERSION),
        request_id: 1_000_000,
        message_type: MessageType::Request,
        method: ByteString::from_static(names::INVOKE_TOOL),
        plugin_id: ByteString::from_static("bench.echo"),
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
    pub async fn start(server: &Path, sizes: (usize, usize)) -> Result<Floor> {
        let dir = tempfile::Builder::new()
            .prefix("maitool-bench-floor")
            .tempdir()?;
        let path = dir.path().join("floor.sock");
        let listener = UnixListener::bind(&path).context("cannot bind the floor socket")?;
        let mut command = Command::new(server);
        command.arg(&path).arg(sizes.1.to_string());
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
