//! A runner in front of a runner: launched by the host in place of the echo runner, it starts
//! the real one (`BENCH_CAPTURE_RUNNER`) on a socket of its own and relays every frame between
//! the two unchanged, appending each to `BENCH_CAPTURE_OUT` as it passes. The benchmark reads
//! the frames the host really sent and the runner really answered from there, byte for byte,
//! and sizes the floor's frames after them (`capture.rs`).
//!
//! Each record in the file: one direction byte (`>` host to runner, `<` runner to host), the
//! frame's length as a big-endian `u32`, and the frame's body.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result};
use futures::{SinkExt, StreamExt};
use maitool_protocol::launch;
use maitool_protocol::wire::frame_codec;
use tokio::net::{UnixListener, UnixStream};
use tokio_util::codec::{FramedRead, FramedWrite};

fn main() -> ExitCode {
    match capture() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("maitool-bench-capture: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn capture() -> Result<()> {
    // Like a runner, never outlive the host.
    nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL)
        .context("cannot set the parent-death signal")?;
    let var = |name: &str| std::env::var(name).with_context(|| format!("{name} is not set"));
    let host_address = PathBuf::from(var(launch::IPC_ADDRESS)?);
    let runner = PathBuf::from(var("BENCH_CAPTURE_RUNNER")?);
    let out = PathBuf::from(var("BENCH_CAPTURE_OUT")?);
    let file =
        std::fs::File::create(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let file = Arc::new(Mutex::new(file));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let own = out.with_extension("sock");
        let listener =
            UnixListener::bind(&own).with_context(|| format!("cannot bind {}", own.display()))?;
        let mut child = tokio::process::Command::new(&runner)
            .env(launch::IPC_ADDRESS, &own)
            .kill_on_drop(true)
            .spawn()
            .with_context(|| format!("cannot start {}", runner.display()))?;
        let (from_runner, _) = listener.accept().await?;
        let to_host = UnixStream::connect(&host_address)
            .await
            .with_context(|| format!("cannot connect to {}", host_address.display()))?;
        let (runner_read, runner_write) = from_runner.into_split();
        let (host_read, host_write) = to_host.into_split();
        let down = relay(host_read, runner_write, b'>', file.clone());
        let up = relay(runner_read, host_write, b'<', file);
        // Either side closing ends the launch, as it would for the runner itself.
        tokio::select! {
            outcome = down => outcome?,
            outcome = up => outcome?,
            _ = child.wait() => {}
        }
        Ok(())
    })
}

/// Copies frames from `from` to `to`, recording each under `direction`.
async fn relay(
    from: impl tokio::io::AsyncRead + Unpin,
    to: impl tokio::io::AsyncWrite + Unpin,
    direction: u8,
    file: Arc<Mutex<std::fs::File>>,
) -> Result<()> {
    let mut frames = FramedRead::new(from, frame_codec());
    let mut sink = FramedWrite::new(to, frame_codec());
    while let Some(frame) = frames.next().await {
        let frame = frame?;
        {
            let mut file = file.lock().expect("the capture file's lock");
            file.write_all(&[direction])?;
            file.write_all(&(frame.len() as u32).to_be_bytes())?;
            file.write_all(&frame)?;
            file.flush()?;
        }
        sink.send(frame.freeze()).await?;
    }
    Ok(())
}
