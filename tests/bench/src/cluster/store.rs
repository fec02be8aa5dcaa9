//! PostgreSQL against SQLite, on the same machine in one run: the plugins' KV store read and
//! written directly, and three built-in tools called through a host's registry on each
//! backend: `reply` (writes a message to the built-in store), `fetch_history` (reads the
//! chat's messages) and `wait` (a read-modify-write of the chat session's loop state, which
//! PostgreSQL locks per row and an embedded host keeps in memory). The rounds alternate
//! between the backends.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use maitool_host::plugin::KvStore;
use maitool_host::postgres::Database;
use maitool_host::{Host, HostConfig};
use maitool_protocol::{ToolExecutionContext, ToolInvocation};
use serde_json::{Value, json};

use crate::plan::Plan;
use crate::report::Report;
use crate::stats::{Latency, ratio};

use super::SECTION;

/// The plugin id the KV rows are kept under.
const PLUGIN: &str = "bench.cluster";
/// The seeded group chat (examples/seed/messages.json) and a message in it.
const CHAT: &str = "demo-group";
const MESSAGE: &str = "m-1003";

/// What is measured on each backend: (operation, label, the embedded backend's key part and
/// name). The embedded host keeps session state in memory, not in SQLite.
const OPERATIONS: [(&str, &str, &str, &str); 5] = [
    ("kv_set", "KV set", "sqlite", "SQLite"),
    ("kv_get", "KV get", "sqlite", "SQLite"),
    ("reply", "reply (writes a message)", "sqlite", "SQLite"),
    (
        "history",
        "fetch_history (reads the chat)",
        "sqlite",
        "SQLite",
    ),
    (
        "session_call",
        "wait (the session's loop state)",
        "memory",
        "memory",
    ),
];

/// One backend's handles.
struct Backend {
    kv: KvStore,
    host: Host,
}

/// Runs the store half of the section on the database at `url`.
pub async fn run(url: &str, plan: &Plan, report: &mut Report) -> Result<()> {
    let dir = tempfile::Builder::new()
        .prefix("maitool-bench-store")
        .tempdir()?;
    let sqlite = Backend {
        kv: KvStore::open(&dir.path().join("kv.sqlite3")).await?,
        host: start_host(dir.path(), "sqlite", None).await?,
    };
    let postgres = Backend {
        kv: KvStore::postgres(Database::new(url, 4)?),
        host: start_host(dir.path(), "postgres", Some(url)).await?,
    };
    let samples = plan.store_samples;
    // Warm both: connections opened, statements prepared, pages cached.
    for backend in [&sqlite, &postgres] {
        for op in OPERATIONS {
            measure(backend, op.0, samples / 4 + 1).await?;
        }
    }
    let mut times: [[Vec<Duration>; 5]; 2] = Default::default();
    for _ in 0..plan.store_rounds {
        for (b, backend) in [&sqlite, &postgres].into_iter().enumerate() {
            for (o, op) in OPERATIONS.iter().enumerate() {
                times[b][o].extend(measure(backend, op.0, samples).await?);
            }
        }
    }
    for (o, (key, label, embedded, embedded_name)) in OPERATIONS.iter().enumerate() {
        let lite = Latency::of(&mut times[0][o]);
        let pg = Latency::of(&mut times[1][o]);
        report.add(
            SECTION,
            &format!("store_{embedded}_{key}_p50_us"),
            &format!("{label}, {embedded_name}, p50"),
            lite.p50_us,
            "µs",
        );
        report.add(
            SECTION,
            &format!("store_postgres_{key}_p50_us"),
            &format!("{label}, PostgreSQL, p50"),
            pg.p50_us,
            "µs",
        );
        report.add(
            SECTION,
            &format!("store_pg_vs_{embedded}_{key}_p50_ratio"),
            &format!("{label}: PostgreSQL / {embedded_name}, p50"),
            ratio(pg.p50_us, lite.p50_us),
            "×",
        );
    }
    report.note("store_samples_per_operation", samples * plan.store_rounds);
    sqlite.host.shutdown().await;
    postgres.host.shutdown().await;
    Ok(())
}

/// A host with the built-in tools on the seeded chat and nothing else, on SQLite or on the
/// PostgreSQL database at `url`.
async fn start_host(dir: &Path, name: &str, url: Option<&str>) -> Result<Host> {
    let seed = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/seed/messages.json");
    let mut config = format!(
        "[host]\ndata_dir = \"{name}-data\"\ncontrol_socket = \"{name}.sock\"\n\
         [mcp]\nenable = false\n\
         [builtin]\ndatabase = \"{name}-builtin.sqlite3\"\nfocus_mode = true\n\
         [builtin.seed]\nmessages = {:?}\n",
        seed.display().to_string()
    );
    if let Some(url) = url {
        config.push_str(&format!("[store]\nbackend = \"postgres\"\nurl = {url:?}\n"));
    }
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, config)?;
    let config = HostConfig::load(&path).with_context(|| format!("{}", path.display()))?;
    Ok(Host::start(config).await?)
}

/// `samples` timings of one operation.
async fn measure(backend: &Backend, operation: &str, samples: usize) -> Result<Vec<Duration>> {
    let mut times = Vec::with_capacity(samples);
    for n in 0..samples {
        let key = format!("key-{}", n % 64);
        let started = Instant::now();
        match operation {
            "kv_set" => backend.kv.set(PLUGIN, &key, &json!({"n": n})).await?,
            "kv_get" => {
                backend.kv.get(PLUGIN, &key).await?;
            }
            "reply" => {
                call(
                    &backend.host,
                    "reply",
                    json!({"msg_id": MESSAGE, "text": format!("bench {n}")}),
                )
                .await?
            }
            "history" => call(&backend.host, "fetch_history", json!({"num": 10})).await?,
            "session_call" => call(&backend.host, "wait", json!({"seconds": 1})).await?,
            other => bail!("no operation {other}"),
        }
        times.push(started.elapsed());
    }
    Ok(times)
}

async fn call(host: &Host, tool: &str, arguments: Value) -> Result<()> {
    let invocation = ToolInvocation::new(tool, arguments.as_object().cloned().unwrap_or_default());
    let context = ToolExecutionContext {
        session_id: CHAT.into(),
        stream_id: CHAT.into(),
        is_group_chat: Some(true),
        ..Default::default()
    };
    let result = host.registry.invoke(invocation, &context).await;
    if !result.success {
        bail!("{tool} failed: {}", result.error_message);
    }
    Ok(())
}
