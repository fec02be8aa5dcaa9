//! The frames of a real echo invocation, captured on a real runner connection: the host under
//! test calls `echo` once through `maitool-bench-capture`, which relays between the host and
//! the echo runner and records every frame. The floor's frames are sized after these, byte for
//! byte, so that the floor carries exactly what maitool carries (only the context keys the
//! tool declares, the envelope as the host writes it) and cannot drift from it.

use std::path::Path;

use anyhow::{Context, Result, bail};
use maitool_host::plugin::RuntimeConfig;
use maitool_protocol::wire::methods::names;
use maitool_protocol::wire::{MessageType, decode_header};

use crate::bins::Bins;
use crate::host::{self, BenchHost};

/// A request and its response as they crossed the runner's socket (bodies, without the
/// 4-byte length prefix).
#[derive(Debug, Clone)]
pub struct Captured {
    /// The host's `plugin.invoke_tool` request.
    pub request: Vec<u8>,
    /// The runner's answer to it.
    pub response: Vec<u8>,
    /// Their `request_id`.
    pub request_id: u64,
}

impl Captured {
    /// The two sizes as they would be with request id `id`: a MessagePack integer's width
    /// depends on its value, and the floor numbers its calls as a long-running host does
    /// (`floor::FIRST_ID`), while the captured call is one of a connection's first.
    pub fn sizes_with_id(&self, id: u64) -> (usize, usize) {
        let delta = uint_width(id) as isize - uint_width(self.request_id) as isize;
        (
            (self.request.len() as isize + delta) as usize,
            (self.response.len() as isize + delta) as usize,
        )
    }
}

/// Bytes of MessagePack's most compact encoding of `n`.
pub fn uint_width(n: u64) -> usize {
    match n {
        0..=127 => 1,
        128..=0xff => 2,
        0x100..=0xffff => 3,
        0x1_0000..=0xffff_ffff => 5,
        _ => 9,
    }
}

/// Starts a host whose echo runner sits behind the capturing relay, calls `echo` once as the
/// benchmark does, and returns that call's frames.
pub async fn invoke_frames(bins: &Bins) -> Result<Captured> {
    // The capture outlives the host's directory, which goes when the host stops.
    let capture_dir = tempfile::Builder::new()
        .prefix("maitool-bench-capture")
        .tempdir()?;
    let out = capture_dir.path().join("frames");
    let dir = tempfile::Builder::new().prefix("maitool-bench").tempdir()?;
    // The relay binds a socket and writes its capture outside any runner's folders: it is the
    // benchmark's instrument, not a plugin, so it runs unsandboxed (the sandbox's own cost is
    // the sandbox section's).
    let runtime = RuntimeConfig {
        sandbox: maitool_host::sandbox::SandboxMode::Off,
        ..RuntimeConfig::default()
    };
    let mut config = host::host_config(dir.path(), &bins.capture, 1, runtime);
    let runner = &mut config.runners[0];
    runner.env.insert(
        "BENCH_CAPTURE_RUNNER".to_owned(),
        bins.echo.display().to_string(),
    );
    runner
        .env
        .insert("BENCH_CAPTURE_OUT".to_owned(), out.display().to_string());
    let bench = BenchHost::start_in(dir, config).await?;
    let mut samples = Vec::new();
    let called = host::sequential(bench.registry(), "echo", 1, &mut samples).await;
    bench.stop().await;
    called?;
    read(&out)
}

/// The last `plugin.invoke_tool` request in the capture file and the response to it.
fn read(path: &Path) -> Result<Captured> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut records = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let Some(head) = bytes.get(at..at + 5) else {
            bail!("the capture ends inside a record header");
        };
        let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
        let body = bytes
            .get(at + 5..at + 5 + len)
            .context("the capture ends inside a frame")?;
        records.push((head[0], body));
        at += 5 + len;
    }
    let (request_id, request) = records
        .iter()
        .rev()
        .filter(|(direction, _)| *direction == b'>')
        .find_map(|(_, body)| {
            let header = decode_header(body).ok()?;
            (&*header.method == names::INVOKE_TOOL).then_some((header.request_id, *body))
        })
        .context("the capture has no plugin.invoke_tool request")?;
    let response = records
        .iter()
        .filter(|(direction, _)| *direction == b'<')
        .find(|(_, body)| {
            decode_header(body).is_ok_and(|header| {
                header.request_id == request_id && header.message_type == MessageType::Response
            })
        })
        .map(|(_, body)| *body)
        .context("the capture has no response to the plugin.invoke_tool request")?;
    Ok(Captured {
        request: request.to_vec(),
        response: response.to_vec(),
        request_id,
    })
}
