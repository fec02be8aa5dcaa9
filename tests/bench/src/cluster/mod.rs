//! Section 9, several hosts on PostgreSQL: store operations and a tool call touching session
//! state on PostgreSQL against SQLite ([`store`]), and calls per second through HAProxy to
//! three hosts against one ([`balancer`]). Needs a PostgreSQL server (`source
//! .ci/start-postgres.sh` names it in `MAITOOL_TEST_POSTGRES_URL`; the section makes a database
//! of its own there and drops it after), and for the balancer half Debian's `haproxy` and
//! the workspace's `maitool` with its `http` feature. Without them the section, or its
//! balancer half, is skipped loudly, and is an error under `MAITOOL_REQUIRE_POSTGRES=1` or
//! `MAITOOL_REQUIRE_BALANCER=1` (CI).

mod balancer;
mod store;

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use tokio_postgres::NoTls;

use crate::bins::Bins;
use crate::plan::Plan;
use crate::report::Report;

const SECTION: &str = "9 cluster";

/// The tracked keys of this section, null when it is skipped.
pub use crate::keys::CLUSTER as KEYS;

/// Where the PostgreSQL server is named.
pub const URL_VAR: &str = "MAITOOL_TEST_POSTGRES_URL";

/// Runs the section into `report`, or skips it (or half of it) loudly.
pub async fn run(bins: &Bins, plan: &Plan, report: &mut Report) -> Result<()> {
    let Ok(admin) = std::env::var(URL_VAR) else {
        let reason = format!(
            "no PostgreSQL server: {URL_VAR} is unset (run `source .ci/start-postgres.sh`)"
        );
        if required("MAITOOL_REQUIRE_POSTGRES") {
            bail!("{reason}; MAITOOL_REQUIRE_POSTGRES=1 requires it");
        }
        skip(report, &reason, KEYS);
        return Ok(());
    };
    let database = BenchDatabase::create(&admin).await?;
    let outcome = async {
        store::run(&database.url, plan, report).await?;
        match balancer_parts(bins) {
            Ok((maitool, haproxy)) => {
                balancer::run(&maitool, &bins.echo, &haproxy, &database.url, plan, report).await
            }
            Err(reason) => {
                if required("MAITOOL_REQUIRE_BALANCER") {
                    bail!("{reason}; MAITOOL_REQUIRE_BALANCER=1 requires it");
                }
                skip(report, &reason, &["balancer_3_vs_1_calls_s_ratio"]);
                Ok(())
            }
        }
    }
    .await;
    database.drop_database().await;
    outcome
}

fn required(var: &str) -> bool {
    std::env::var(var).as_deref() == Ok("1")
}

fn skip(report: &mut Report, reason: &str, keys: &[&str]) {
    eprintln!("\n======== SKIPPED: benchmark section {SECTION}: {reason} ========\n");
    report.skip(SECTION, reason);
    report.note("cluster_skipped", reason);
    report.absent(SECTION, keys);
}

/// The workspace's `maitool` (with `http`, for `--mcp-http`) beside the benchmark, and
/// `haproxy`; or why the balancer half cannot run.
fn balancer_parts(bins: &Bins) -> Result<(PathBuf, PathBuf), String> {
    let haproxy = [
        "/usr/sbin/haproxy",
        "/usr/bin/haproxy",
        "/usr/local/sbin/haproxy",
    ]
    .into_iter()
    .map(PathBuf::from)
    .find(|path| path.exists())
    .ok_or("no HAProxy: install Debian's `haproxy`")?;
    let dir = bins.maitool.parent().map(PathBuf::from).unwrap_or_default();
    let maitool = dir.join("maitool");
    let version = std::process::Command::new(&maitool)
        .arg("--version")
        .output()
        .map(|output| String::from_utf8_lossy(&output.stdout).into_owned())
        .unwrap_or_default();
    if !version.contains("http") {
        return Err(format!(
            "{} is missing or built without `http` (its --version: {:?}): build it with `cargo build -p maitool-host --bin maitool` in this profile",
            maitool.display(),
            version.trim()
        ));
    }
    Ok((maitool, haproxy))
}

/// A database of the section's own on the server, dropped after.
struct BenchDatabase {
    admin: String,
    name: String,
    url: String,
}

impl BenchDatabase {
    async fn create(admin: &str) -> Result<BenchDatabase> {
        let name = format!("maitool_bench_{}", std::process::id());
        let client = connect(admin).await?;
        // Two statements: CREATE DATABASE refuses to run in a transaction (a batch is one).
        client
            .batch_execute(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"))
            .await?;
        client
            .batch_execute(&format!("CREATE DATABASE \"{name}\""))
            .await?;
        let url = if admin.contains("dbname=") {
            admin
                .split_whitespace()
                .map(|part| {
                    if part.starts_with("dbname=") {
                        format!("dbname={name}")
                    } else {
                        part.to_owned()
                    }
                })
                .collect::<Vec<_>>()
                .join(" ")
        } else {
            format!("{admin} dbname={name}")
        };
        Ok(BenchDatabase {
            admin: admin.to_owned(),
            name,
            url,
        })
    }

    async fn drop_database(self) {
        if let Ok(client) = connect(&self.admin).await {
            let _ = client
                .batch_execute(&format!(
                    "DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)",
                    self.name
                ))
                .await;
        }
    }
}

async fn connect(url: &str) -> Result<tokio_postgres::Client> {
    let (client, connection) = tokio_postgres::connect(url, NoTls)
        .await
        .with_context(|| format!("cannot connect to PostgreSQL at {url}"))?;
    tokio::spawn(connection);
    Ok(client)
}
