//! Section 1, the floor: a raw length-prefixed MessagePack ping-pong with a second process
//! over a Unix socket, with frames of exactly the sizes a real `plugin.invoke_tool` request
//! and its response have (captured on a real runner connection, `capture.rs`). Everything
//! maitool adds (envelope, registry, provider, RPC multiplexing, the runner's dispatch and the
//! SDK) is measured against this.
//!
//! The server is `maitool-bench-floor`: it connects back to a socket the benchmark listens on,
//! runs on a current-thread runtime and the system allocator, as a runner does. The client is
//! this process, on the host's runtime and allocator, as the host is. Both sides batch writes
//! the way the RPC peer does: every frame already available is fed, and the buffer is flushed
//! once when nothing more is ready.
//!
//! Two floors: the serde floor encodes and decodes named-field MessagePack with a dynamic JSON
//! arguments object on both sides, as any MessagePack RPC would; the raw floor
//! ([`Floor::start_raw`]) moves the same number of bytes and decodes nothing, the socket and
//! the wake-ups alone.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use bytes::Bytes;
use futures::{FutureExt, SinkExt, StreamExt};
use maitool_protocol::wire::frame_codec;
use maitool_protocol::{JsonObject, ToolExecutionContext};
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

/// The floor's first request id. Ids grow like the RPC peer's, from where a long-running
/// host's are, so that they encode at a long-running host's width.
pub const FIRST_ID: u64 = 1_000_000;

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
    /// The raw floor's one request, sent as it is; `None` for the serde floor.
    raw: Option<Bytes>,
    /// Request and response body sizes on the wire.
    pub sizes: (usize, usize),
    server: ChildGuard,
    _dir: tempfile::TempDir,
}

impl std::fmt::Debug for Floor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Floor")
            .field("sizes", &self.sizes)
            .field("raw", &self.raw.is_some())
            .finish_non_exhaustive()
    }
}

impl Floor {
    /// Starts the serde floor's server and connects to it; its frames are exactly `sizes`
    /// (request, response) long.
    pub async fn start(server: &Path, sizes: (usize, usize)) -> Result<Floor> {
        Floor::launch(server, sizes, false).await
    }

    /// Starts the raw floor: frames of the same sizes, sent and answered without any
    /// MessagePack encode or decode.
    pub async fn start_raw(server: &Path, sizes: (usize, usize)) -> Result<Floor> {
        Floor::launch(server, sizes, true).await
    }

    async fn launch(server: &Path, sizes: (usize, usize), raw: bool) -> Result<Floor> {
        let dir = tempfile::Builder::new()
            .prefix("maitool-bench-floor")
            .tempdir()?;
        let path = dir.path().join("floor.sock");
        let listener = UnixListener::bind(&path).context("cannot bind the floor socket")?;
        let mut command = Command::new(server);
        command.arg(&path).arg(sizes.1.to_string());
        if raw {
            command.arg("raw");
        }
        let server = ChildGuard::spawn(command, "the floor server")?;
        let (stream, _) = tokio::time::timeout(Duration::from_secs(10), listener.accept())
            .await
            .context("the floor server did not connect within 10 s")??;
        let pad = pad_for(sizes.0, |pad| request_bytes(FIRST_ID, pad))?;
        let request = request_bytes(FIRST_ID, &pad)?;
        if request.len() != sizes.0 {
            bail!(
                "the floor's request is {} bytes, the real one {}",
                request.len(),
                sizes.0
            );
        }
        Ok(Floor {
            framed: Framed::new(stream, frame_codec()),
            pad,
            next_id: 0,
            raw: raw.then(|| Bytes::from(request)),
            sizes,
            server,
            _dir: dir,
        })
    }

    /// The server process's pid.
    pub fn server_pid(&self) -> u32 {
        self.server.pid()
    }

    fn request(&mut self) -> Result<Bytes> {
        if let Some(raw) = &self.raw {
            return Ok(raw.clone());
        }
        let id = FIRST_ID + self.next_id;
        self.next_id += 1;
        Ok(Bytes::from(request_bytes(id, &self.pad)?))
    }

    fn check(&self, frame: &[u8]) -> Result<()> {
        if self.raw.is_some() {
            if frame.len() != self.sizes.1 {
                bail!("the raw floor server answered {} bytes", frame.len());
            }
            return Ok(());
        }
        let response: FloorResponse = rmp_serde::from_slice(frame)?;
        if !response.result.success || response.result.content != "hello" {
            bail!("the floor server answered {response:?}");
        }
        if frame.len() != self.sizes.1 {
            bail!(
                "the floor's response is {} bytes, the real one {}",
                frame.len(),
                self.sizes.1
            );
        }
        Ok(())
    }

    async fn receive(&mut self) -> Result<()> {
        let frame = self
            .framed
            .next()
            .await
            .context("the floor server closed the connection")??;
        self.check(&frame)
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
                self.check(&frame?)?;
                received += 1;
            }
        }
        Ok(total as f64 / started.elapsed().as_secs_f64())
    }
}
