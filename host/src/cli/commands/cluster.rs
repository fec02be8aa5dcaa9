//! The cluster in `maitool status` (every host on the PostgreSQL store, from the shared
//! `hosts` table) and `maitool status --ready`, the readiness probe of one host.

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Result;
use serde_json::{Value, json};

use crate::LoadedConfig;
use crate::cli::EXIT_FAILED;
use crate::cli::output::outln;
use crate::cluster::ClusterView;
use crate::control::ControlClient;
use crate::shared_state::SharedState;

/// How long `status` waits for the database before it shows the cluster as unreachable (the
/// pool's own connect and wait limits are longer).
const READ_LIMIT: Duration = Duration::from_secs(5);

/// The `cluster` field of `status --json`: `None` on the embedded store (one host, no
/// table); the hosts, or `{database, error}` when the database cannot be read.
pub(super) async fn view(config: &LoadedConfig) -> Option<Value> {
    // An invalid `[store]` was refused when the configuration loaded.
    let shared = SharedState::from_config(&config.config.store).ok()?;
    let database = shared.database()?;
    let read = tokio::time::timeout(
        READ_LIMIT,
        ClusterView::read(database, &config.config.cluster),
    )
    .await;
    let error = match read {
        Ok(Ok(view)) => return serde_json::to_value(view).ok(),
        Ok(Err(err)) => crate::error_text::chain(&err),
        Err(_) => format!("no answer within {} s", READ_LIMIT.as_secs()),
    };
    Some(json!({ "database": database.target(), "error": error }))
}

/// The cluster's lines of human-readable `status`.
pub(super) fn print_cluster(cluster: &Value) -> Result<()> {
    let text = |value: &Value, key: &str| match value.get(key) {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    };
    let database = text(cluster, "database");
    if let Some(error) = cluster.get("error").and_then(Value::as_str) {
        outln!("cluster: hosts on {database} unknown: {error}")?;
        return Ok(());
    }
    let hosts: &[Value] = cluster
        .get("hosts")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    let seconds = |ms: i64| format!("{:.1} s", ms as f64 / 1000.0);
    let stale_after = cluster.get("stale_after_ms").and_then(Value::as_i64);
    outln!(
        "cluster: {} host{} on {database} (stale after {})",
        hosts.len(),
        if hosts.len() == 1 { "" } else { "s" },
        seconds(stale_after.unwrap_or_default())
    )?;
    for host in hosts {
        let ago = host.get("last_seen_ago_ms").and_then(Value::as_i64);
        let mut line = format!(
            "  {:32} {:8} tools={} plugins={}/{} version={} last seen {} ago",
            text(host, "host_id"),
            text(host, "state"),
            text(host, "tools"),
            text(host, "plugins_loaded"),
            text(host, "plugins_total"),
            text(host, "version"),
            seconds(ago.unwrap_or_default()),
        );
        let address = text(host, "mcp_address");
        if !address.is_empty() {
            line.push_str(&format!(" mcp={address}"));
        }
        outln!("{line}")?;
        let waiting = text(host, "waiting_for");
        if text(host, "state") == "starting" && !waiting.is_empty() {
            outln!("    waiting for: {waiting}")?;
        }
    }
    Ok(())
}

/// `status --ready`: asks the running serve whether its first listing would be complete.
/// Exit 0 when it would; [`EXIT_FAILED`] with the reason on stderr when it would not, or
/// when no serve answers (a probe must not start a one-shot host).
pub(super) async fn ready(socket: &Path, json: bool) -> Result<ExitCode> {
    let (ready, reason) = match ControlClient::connect(socket).await {
        None => (
            false,
            format!("no maitool serve is running on {}", socket.display()),
        ),
        Some(client) => match client.status().await {
            Err(err) => (
                false,
                format!(
                    "the maitool serve on {} did not answer: {err}",
                    socket.display()
                ),
            ),
            Ok(status) => {
                let ready = status.get("ready").and_then(Value::as_bool) == Some(true);
                let waiting: Vec<&str> = status
                    .get("waiting_for")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .collect();
                let reason = if waiting.is_empty() {
                    "the first tool listing is not complete yet".to_owned()
                } else {
                    format!("the first tool listing waits for {}", waiting.join("; "))
                };
                (ready, reason)
            }
        },
    };
    if json {
        let answer = if ready {
            json!({ "ready": true })
        } else {
            json!({ "ready": false, "reason": reason })
        };
        outln!("{}", serde_json::to_string_pretty(&answer)?)?;
    } else if ready {
        outln!("ready")?;
    } else {
        outln!("not ready: {reason}")?;
    }
    Ok(if ready {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_FAILED)
    })
}
