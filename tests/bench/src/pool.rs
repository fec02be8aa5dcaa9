//! Section 8, runner pools: the echo call to a pool member over TLS 1.3 on loopback (client
//! certificates, as deployed) and over plain TCP, against the same call to a child runner
//! over its Unix socket; and a pool of three members against a pool of one, 256 calls in
//! flight. One host serves all four paths and the rounds alternate, so every path sees the
//! same machine. The members are the benchmark's echo runner, unchanged, started with the
//! pool variables an operator sets (docs/SCALING.md).

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use maitool_host::plugin::{PoolConfig, PoolTls, RuntimeConfig};
use maitool_protocol::pool_token::token_digest;
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
use tokio::process::{Child, Command};

use crate::bins::Bins;
use crate::host::{self, BenchHost};
use crate::plan::Plan;
use crate::report::Report;
use crate::stats::{Latency, median, ratio};

const SECTION: &str = "8 pool";

/// The tracked keys of this section.
pub const KEYS: &[&str] = &[
    "pool_tls_invoke_p50_ratio",
    "pool_3_vs_1_throughput_256_ratio",
];

const TOKEN: &str = "bench-pool-token";

/// The paths measured: the child runner's tool and each pool's.
const UNIX: &str = "echo";
const TLS_ONE: &str = "pool1";
const TLS_THREE: &str = "pool3";
const PLAIN: &str = "plain";

/// Runs the section into `report`.
pub async fn run(bins: &Bins, plan: &Plan, report: &mut Report) -> Result<()> {
    let dir = tempfile::Builder::new()
        .prefix("maitool-bench-pool")
        .tempdir()?;
    let files = Files::make(dir.path())?;
    let mut config = host::host_config(dir.path(), &bins.echo, 1, RuntimeConfig::default());
    config.pools = vec![
        pool(TLS_ONE, Some(&files)),
        pool(TLS_THREE, Some(&files)),
        pool(PLAIN, None),
    ];
    let bench = BenchHost::start_in(dir, config).await?;
    let addresses = bench.host.plugins.pool_addresses();
    let address = |name: &str| {
        addresses
            .iter()
            .find(|(pool, _)| pool == name)
            .map(|(_, addr)| addr.to_string())
            .with_context(|| format!("pool {name} is not listening"))
    };
    let mut members: Vec<Child> = Vec::new();
    for (name, count, tls) in [(TLS_ONE, 1, true), (TLS_THREE, 3, true), (PLAIN, 1, false)] {
        let addr = address(name)?;
        for index in 0..count {
            members.push(member(
                &bins.echo,
                &files.token,
                &addr,
                name,
                index,
                tls.then_some(&files),
            )?);
        }
    }
    for (name, count) in [(TLS_ONE, 1), (TLS_THREE, 3), (PLAIN, 1)] {
        wait_for_members(&bench, name, count).await?;
    }
    let registry = bench.registry().clone();

    let mut scratch = Vec::new();
    for tool in [UNIX, TLS_ONE, PLAIN, TLS_THREE] {
        host::sequential(&registry, tool, plan.warmup, &mut scratch).await?;
    }
    let (mut unix, mut tls, mut plain) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..plan.rounds {
        host::sequential(&registry, UNIX, plan.per_round, &mut unix).await?;
        host::sequential(&registry, TLS_ONE, plan.per_round, &mut tls).await?;
        host::sequential(&registry, PLAIN, plan.per_round, &mut plain).await?;
    }
    let (unix, tls, plain) = (
        Latency::of(&mut unix),
        Latency::of(&mut tls),
        Latency::of(&mut plain),
    );
    report.add(
        SECTION,
        "pool_unix_invoke_p50_us",
        "child runner over its Unix socket, one call in flight, p50",
        unix.p50_us,
        "µs",
    );
    report.add(
        SECTION,
        "pool_tls_invoke_p50_us",
        "pool member over TLS 1.3 on loopback, p50",
        tls.p50_us,
        "µs",
    );
    report.add(
        SECTION,
        "pool_tcp_invoke_p50_us",
        "pool member over plain TCP on loopback, p50",
        plain.p50_us,
        "µs",
    );
    report.add(
        SECTION,
        "pool_tls_invoke_p50_ratio",
        "p50, TLS member / Unix child",
        ratio(tls.p50_us, unix.p50_us),
        "x",
    );
    report.add(
        SECTION,
        "pool_tls_invoke_p99_ratio",
        "p99, TLS member / Unix child",
        ratio(tls.p99_us, unix.p99_us),
        "x",
    );
    report.add(
        SECTION,
        "pool_tcp_invoke_p50_ratio",
        "p50, plain TCP member / Unix child",
        ratio(plain.p50_us, unix.p50_us),
        "x",
    );

    let calls = plan.throughput_calls / 4;
    let (mut one, mut three, mut child, mut failed) = (Vec::new(), Vec::new(), Vec::new(), 0);
    for tool in [UNIX, TLS_ONE, TLS_THREE] {
        host::concurrent(&registry, tool, 256, calls / 4).await?;
    }
    for _ in 0..plan.throughput_rounds {
        for (tool, rates) in [
            (UNIX, &mut child),
            (TLS_ONE, &mut one),
            (TLS_THREE, &mut three),
        ] {
            let (rate, failures) = host::concurrent(&registry, tool, 256, calls).await?;
            rates.push(rate);
            failed += failures;
        }
    }
    let (one, three, child) = (median(&one), median(&three), median(&child));
    report.add(
        SECTION,
        "pool_unix_calls_per_s_256",
        "child runner, 256 in flight",
        child,
        "calls/s",
    );
    report.add(
        SECTION,
        "pool_1_calls_per_s_256",
        "pool of one TLS member, 256 in flight",
        one,
        "calls/s",
    );
    report.add(
        SECTION,
        "pool_3_calls_per_s_256",
        "pool of three TLS members, 256 in flight",
        three,
        "calls/s",
    );
    report.add(
        SECTION,
        "pool_tls_throughput_256_ratio",
        "256 in flight, one TLS member / Unix child",
        ratio(one, child),
        "x",
    );
    report.add(
        SECTION,
        "pool_3_vs_1_throughput_256_ratio",
        "256 in flight, three members / one",
        ratio(three, one),
        "x",
    );
    report.add(
        SECTION,
        "pool_calls_failed",
        "failed calls at 256 in flight (all paths)",
        failed as f64,
        "calls",
    );
    bench.stop().await;
    for mut child in members {
        let _ = child.kill().await;
    }
    Ok(())
}

/// The CA, the host's certificate for 127.0.0.1, a member's client certificate, the token.
struct Files {
    ca: std::path::PathBuf,
    host_cert: std::path::PathBuf,
    host_key: std::path::PathBuf,
    member_cert: std::path::PathBuf,
    member_key: std::path::PathBuf,
    token: std::path::PathBuf,
}

impl Files {
    fn make(dir: &Path) -> Result<Files> {
        let mut ca_params = CertificateParams::new(Vec::<String>::new())?;
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate()?)?;
        let host_key = KeyPair::generate()?;
        let host =
            CertificateParams::new(vec!["127.0.0.1".to_owned()])?.signed_by(&host_key, &ca)?;
        let member_key = KeyPair::generate()?;
        let mut member_params = CertificateParams::new(vec!["member.bench".to_owned()])?;
        member_params.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ClientAuth];
        let member = member_params.signed_by(&member_key, &ca)?;
        let write = |name: &str, text: String| -> Result<std::path::PathBuf> {
            let path = dir.join(name);
            std::fs::write(&path, text)
                .with_context(|| format!("cannot write {}", path.display()))?;
            Ok(path)
        };
        Ok(Files {
            ca: write("ca.pem", ca.pem())?,
            host_cert: write("host.pem", host.pem())?,
            host_key: write("host.key", host_key.serialize_pem())?,
            member_cert: write("member.pem", member.pem())?,
            member_key: write("member.key", member_key.serialize_pem())?,
            token: write("pool-token", TOKEN.to_owned())?,
        })
    }
}

/// Pool `name`, serving plugin `bench.<name>` with its tool `<name>`, on a free loopback
/// port; TLS with client certificates when `files` is given.
fn pool(name: &str, files: Option<&Files>) -> PoolConfig {
    let digest: String = token_digest(TOKEN)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    PoolConfig {
        name: name.to_owned(),
        plugin: format!("bench.{name}"),
        listen: "127.0.0.1:0".parse().expect("a socket address"),
        token_sha256: vec![digest.into()],
        tls: files.map(|files| PoolTls {
            cert_file: files.host_cert.clone(),
            key_file: files.host_key.clone(),
            client_ca_file: Some(files.ca.clone()),
        }),
        settings: Default::default(),
    }
}

/// The echo runner as member `index` of pool `name`, dialling `addr` with the token file
/// `token`.
fn member(
    echo: &Path,
    token: &Path,
    addr: &str,
    name: &str,
    index: usize,
    files: Option<&Files>,
) -> Result<Child> {
    let mut command = Command::new(echo);
    command
        .env("BENCH_PLUGIN_ID", format!("bench.{name}"))
        .env("BENCH_TOOL_NAME", name)
        .env("MAITOOL_POOL_ADDRESS", addr)
        .env("MAITOOL_POOL_NAME", name)
        .env("MAITOOL_POOL_MEMBER", format!("{name}-{index}"))
        .env("MAITOOL_POOL_TOKEN_FILE", token)
        .env("RUST_LOG", "error")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .kill_on_drop(true);
    if let Some(files) = files {
        command
            .env("MAITOOL_POOL_CA_FILE", &files.ca)
            .env("MAITOOL_POOL_CERT_FILE", &files.member_cert)
            .env("MAITOOL_POOL_KEY_FILE", &files.member_key);
    }
    command
        .spawn()
        .with_context(|| format!("cannot start member {index} of pool {name}"))
}

async fn wait_for_members(bench: &BenchHost, pool: &str, count: usize) -> Result<()> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let now = bench.host.plugins.pool_members(pool).map_or(0, |m| m.len());
        if now == count {
            return Ok(());
        }
        if tokio::time::Instant::now() > deadline {
            bail!("pool {pool} has {now} members 30 s after its members started, not {count}");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
