//! Codec and RPC benchmarks.
//!
//! * `codec/*`: the rmp-serde work of one plugin tool call, in process: encode and decode of a
//!   typical `plugin.invoke_tool` request envelope and of its result response.
//! * `rpc/*`: an in-process round trip through two `RpcPeer`s over `UnixStream::pair()` on a
//!   current_thread runtime, sequential and with 64 / 256 calls in flight, next to the raw
//!   floor of the same socket pair (length-delimited frames echoed without serde or RPC), so
//!   the overhead of the peer is read as a ratio on a noisy shared machine.

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use futures::future::{BoxFuture, join_all};
use futures::{FutureExt, SinkExt, StreamExt};
use maitool_protocol::model::{JsonObject, ToolExecutionResult};
use maitool_protocol::rpc::{
    IncomingMessage, Payload, PeerConfig, RequestHandler, RpcError, RpcPeer,
};
use maitool_protocol::wire::{
    Envelope, decode_header, decode_payload, encode_envelope, encode_response_raw, frame_codec,
};
use serde::{Deserialize, Serialize};
use tokio::net::UnixStream;
use tokio::runtime::Runtime;
use tokio_util::codec::Framed;

#[derive(Debug, Clone, Serialize, Deserialize)]
struct InvokeRequest {
    plugin_id: String,
    component_name: String,
    args: JsonObject,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct InvokeResult {
    success: bool,
    tool_result: Option<ToolExecutionResult>,
}

fn invoke_request() -> InvokeRequest {
    let mut args = JsonObject::new();
    for (key, value) in [
        ("text", "hello"),
        ("stream_id", "st1"),
        ("chat_id", "st1"),
        ("platform", "qq"),
    ] {
        args.insert(key.into(), value.into());
    }
    InvokeRequest {
        plugin_id: "demo".into(),
        component_name: "echo".into(),
        args,
    }
}

fn invoke_result() -> InvokeResult {
    InvokeResult {
        success: true,
        tool_result: Some(ToolExecutionResult::success("echo", "hello")),
    }
}

fn codec(c: &mut Criterion) {
    let request = Envelope::request(41, "plugin.invoke_tool", "demo", 60_000, invoke_request());
    let request_frame = encode_envelope(&request).unwrap();
    let request_header = decode_header(&request_frame).unwrap();
    let result_payload = Payload::encode(&invoke_result()).unwrap();
    let response_frame = encode_response_raw(&request_header, result_payload.as_bytes()).unwrap();
    println!(
        "frame sizes: request {} B, response {} B",
        request_frame.len(),
        response_frame.len()
    );

    let mut group = c.benchmark_group("codec");
    group.bench_function("encode_request", |b| {
        b.iter(|| encode_envelope(black_box(&request)).unwrap())
    });
    group.bench_function("decode_request_header", |b| {
        b.iter(|| decode_header(black_box(&request_frame)).unwrap())
    });
    group.bench_function("decode_request", |b| {
        b.iter(|| {
            let header = decode_header(black_box(&request_frame)).unwrap();
            let payload: InvokeRequest = decode_payload(&request_frame).unwrap();
            (header, payload)
        })
    });
    group.bench_function("encode_response", |b| {
        let result = invoke_result();
        b.iter(|| {
            let payload = Payload::encode(black_box(&result)).unwrap();
            encode_response_raw(&request_header, payload.as_bytes()).unwrap()
        })
    });
    group.bench_function("decode_response", |b| {
        b.iter(|| {
            let header = decode_header(black_box(&response_frame)).unwrap();
            let payload: InvokeResult = decode_payload(&response_frame).unwrap();
            (header, payload)
        })
    });
    group.bench_function("whole_call", |b| {
        let result = invoke_result();
        b.iter(|| {
            let frame = encode_envelope(black_box(&request)).unwrap();
            let header = decode_header(&frame).unwrap();
            let _: InvokeRequest = decode_payload(&frame).unwrap();
            let payload = Payload::encode(&result).unwrap();
            let response = encode_response_raw(&header, payload.as_bytes()).unwrap();
            let _ = decode_header(&response).unwrap();
            decode_payload::<InvokeResult>(&response).unwrap()
        })
    });
    group.finish();
}

/// The runner side of the round trip: decodes the request and answers a result.
struct EchoTool;

impl RequestHandler for EchoTool {
    fn handle(&self, request: IncomingMessage) -> BoxFuture<'static, Result<Payload, RpcError>> {
        async move {
            let invoke: InvokeRequest = request.payload()?;
            let text = invoke
                .args
                .get("text")
                .and_then(|v| v.as_str())
                .unwrap_or("");
            Payload::encode(&InvokeResult {
                success: true,
                tool_result: Some(ToolExecutionResult::success(invoke.component_name, text)),
            })
        }
        .boxed()
    }
}

fn current_thread() -> Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn peers(runtime: &Runtime) -> (RpcPeer, RpcPeer) {
    runtime.block_on(async {
        let (a, b) = UnixStream::pair().unwrap();
        let host = RpcPeer::start(a, Arc::new(EchoTool), PeerConfig::new("host"));
        let runner = RpcPeer::start(b, Arc::new(EchoTool), PeerConfig::new("runner"));
        (host, runner)
    })
}

async fn one_call(host: &RpcPeer, request: &InvokeRequest) -> InvokeResult {
    host.call(
        "plugin.invoke_tool",
        "demo",
        request,
        Duration::from_secs(10),
    )
    .await
    .unwrap()
}

fn rpc(c: &mut Criterion) {
    let runtime = current_thread();
    let (host, _runner) = peers(&runtime);
    let request = invoke_request();

    let mut group = c.benchmark_group("rpc");
    group.bench_function("round_trip_sequential", |b| {
        b.iter_custom(|iters| {
            runtime.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    black_box(one_call(&host, &request).await);
                }
                start.elapsed()
            })
        })
    });
    for window in [64usize, 256] {
        group.throughput(Throughput::Elements(window as u64));
        group.bench_function(format!("concurrent_{window}"), |b| {
            b.iter_custom(|iters| {
                runtime.block_on(async {
                    let start = Instant::now();
                    for _ in 0..iters {
                        black_box(join_all((0..window).map(|_| one_call(&host, &request))).await);
                    }
                    start.elapsed()
                })
            })
        });
    }
    group.finish();

    // The floor: the same frames echoed over the same kind of socket pair, no serde, no RPC.
    let request_frame = encode_envelope(&Envelope::request(
        1,
        "plugin.invoke_tool",
        "demo",
        0,
        &request,
    ))
    .unwrap();
    let mut floor = c.benchmark_group("rpc_floor");
    floor.bench_function("raw_frames_round_trip", |b| {
        let (mut client, echo) = runtime.block_on(async {
            let (a, b) = UnixStream::pair().unwrap();
            let mut server = Framed::new(b, frame_codec());
            let echo = tokio::spawn(async move {
                while let Some(Ok(frame)) = server.next().await {
                    if server.send(frame.freeze()).await.is_err() {
                        break;
                    }
                }
            });
            (Framed::new(a, frame_codec()), echo)
        });
        b.iter_custom(|iters| {
            runtime.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    client.send(request_frame.clone()).await.unwrap();
                    black_box(client.next().await.unwrap().unwrap());
                }
                start.elapsed()
            })
        });
        echo.abort();
    });
    floor.finish();
    host.close();
}

criterion_group!(benches, codec, rpc);
criterion_main!(benches);
