//! The floor's server: answers the benchmark's raw MessagePack requests over a Unix socket,
//! with nothing of maitool in between (see `floor.rs`).
//!
//! A separate executable, unlike the rest of the benchmark, so that it runs as a runner does:
//! a current-thread runtime and the system allocator (the benchmark process itself runs on the
//! host's mimalloc).
//!
//! Usage: `maitool-bench-floor SOCKET RESPONSE_BYTES [raw]`. With `raw` it decodes nothing:
//! every frame is answered with the same `RESPONSE_BYTES` bytes (the raw floor).

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};
use bytes::Bytes;
use futures::{FutureExt, SinkExt, StreamExt};
use maitool_protocol::wire::frame_codec;
use tokio::net::UnixStream;
use tokio_util::codec::Framed;

#[path = "../floor_wire.rs"]
mod floor_wire;

use floor_wire::{FloorRequest, FloorResponse, FloorResult, pad_for};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let outcome = match args.as_slice() {
        [socket, response_bytes, rest @ ..] if rest.is_empty() || rest == ["raw"] => response_bytes
            .parse()
            .context("RESPONSE_BYTES is not a number")
            .and_then(|bytes| serve(Path::new(socket), bytes, !rest.is_empty())),
        _ => Err(anyhow::anyhow!(
            "usage: maitool-bench-floor SOCKET RESPONSE_BYTES [raw]"
        )),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("maitool-bench-floor: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// Answers every request until the client goes away.
fn serve(socket: &Path, response_bytes: usize, raw: bool) -> Result<()> {
    // Like a runner, never outlive the benchmark.
    if let Err(err) = nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL) {
        eprintln!("maitool-bench-floor: cannot set the parent-death signal: {err}");
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let stream = UnixStream::connect(socket)
            .await
            .with_context(|| format!("cannot connect to {}", socket.display()))?;
        let mut framed = Framed::new(stream, frame_codec());
        let pad = pad_for(response_bytes, |pad| {
            encode_response(1_000_000, "hello".into(), pad)
        })?;
        let raw_answer = Bytes::from(vec![0u8; response_bytes]);
        let answer = |frame: &[u8]| -> Result<Bytes> {
            if raw {
                Ok(raw_answer.clone())
            } else {
                answer(frame, &pad)
            }
        };
        loop {
            let Some(frame) = framed.next().await else {
                return Ok(());
            };
            framed.feed(answer(&frame?)?).await?;
            while let Some(Some(frame)) = framed.next().now_or_never() {
                framed.feed(answer(&frame?)?).await?;
            }
            SinkExt::<Bytes>::flush(&mut framed).await?;
        }
    })
}

fn encode_response(id: u64, content: String, pad: &str) -> Result<Vec<u8>> {
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

fn answer(frame: &[u8], pad: &str) -> Result<Bytes> {
    let request: FloorRequest = rmp_serde::from_slice(frame)?;
    let text = request
        .params
        .arguments
        .get("text")
        .and_then(|v| v.as_str())
        .unwrap_or_default()
        .to_owned();
    Ok(Bytes::from(encode_response(request.id, text, pad)?))
}
