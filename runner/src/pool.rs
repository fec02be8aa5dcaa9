//! A plugin as a pool member: a process an orchestrator starts (not the host), which dials
//! the hosts named in its environment ([`maitool_protocol::launch::pool`]), keeps one
//! connection per address each name resolves to, reconnects with capped, jittered backoff,
//! and on SIGTERM drains: it says `runner.draining`, finishes what it was sent, and exits.
//!
//! `env.rs` the environment, `dial.rs` resolution, TCP and TLS, `backoff.rs` the delays,
//! `health.rs` the HTTP probes an orchestrator reads.
//! A member's logs go to its standard error, where its orchestrator collects them.

use std::collections::HashSet;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::RwLock;
use tokio::sync::watch;

mod backoff;
mod dial;
mod env;
mod health;

pub(crate) use env::{PoolEnv, from_env as member_env};

use self::backoff::Backoff;
use crate::accepted_links::AcceptedLinks;
use crate::serve::{Ended, Membership, serve_connection};
use crate::{LaunchEnv, PluginSpec, RunnerOptions};

/// How often the member resolves its hosts' names again, besides after each disconnect.
const RESOLVE_EVERY: Duration = Duration::from_secs(30);

/// Runs the process as a pool member and exits it (0 once drained).
pub(crate) fn run_member(env: PoolEnv, plugins: Vec<PluginSpec>, options: RunnerOptions) -> ! {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
    let env = match env {
        Ok(env) => Arc::new(env),
        Err(err) => {
            tracing::error!("pool member: {err}");
            std::process::exit(2);
        }
    };
    let runtime = match crate::serve::build_runtime(&options) {
        Ok(runtime) => runtime,
        Err(err) => {
            tracing::error!("{}", crate::RunnerError::Runtime(err));
            std::process::exit(1);
        }
    };
    runtime.block_on(serve_member(env, plugins));
    runtime.shutdown_timeout(Duration::from_millis(100));
    std::process::exit(0);
}

/// Connects to every address of every host until SIGTERM, then drains each connection.
async fn serve_member(env: Arc<env::MemberEnv>, plugins: Vec<PluginSpec>) {
    let links = Arc::new(AcceptedLinks::default());
    if let Some(address) = &env.health_address {
        match health::serve(address, links.clone()).await {
            Ok(bound) => {
                tracing::info!("probe endpoint listening on {bound} (GET /livez, /readyz)")
            }
            Err(err) => {
                tracing::error!("pool member: {}", error_chain(&err));
                std::process::exit(2);
            }
        }
    }
    let (drain_tx, drain) = watch::channel(false);
    match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
        Ok(mut term) => {
            let links = links.clone();
            tokio::spawn(async move {
                term.recv().await;
                tracing::info!("SIGTERM: draining");
                links.set_draining();
                let _ = drain_tx.send(true);
            });
        }
        Err(err) => tracing::warn!("cannot watch SIGTERM ({err}); the member will not drain"),
    }
    tracing::info!(pool = %env.pool, member = %env.member, hosts = ?env.hosts, "pool member starting");
    let member = Arc::new(Member {
        env: env.clone(),
        links: links.clone(),
        wanted: RwLock::default(),
        resolve_now: tokio::sync::Notify::new(),
        drain: drain.clone(),
    });
    let (wanted, resolve_now) = (&member.wanted, &member.resolve_now);
    let mut sessions: Vec<(SocketAddr, tokio::task::JoinHandle<()>)> = Vec::new();
    let mut resolve_backoff = Backoff::new();
    loop {
        let addresses = dial::resolve_all(&env.hosts).await;
        let pause = if addresses.is_empty() {
            links.note_failure(format!("none of {:?} resolved to an address", env.hosts));
            resolve_backoff.next_delay()
        } else {
            resolve_backoff.reset();
            RESOLVE_EVERY
        };
        *wanted.write() = addresses.iter().map(|(addr, _)| *addr).collect();
        sessions.retain(|(_, task)| !task.is_finished());
        for (addr, server_name) in addresses {
            if sessions.iter().any(|(running, _)| *running == addr) {
                continue;
            }
            let task = tokio::spawn(session(member.clone(), addr, server_name, plugins.clone()));
            sessions.push((addr, task));
        }
        let mut draining = drain.clone();
        tokio::select! {
            _ = tokio::time::sleep(pause) => {}
            _ = resolve_now.notified() => {}
            _ = draining.wait_for(|d| *d) => break,
        }
    }
    for (_, task) in sessions {
        let _ = task.await;
    }
    tracing::info!("drained; exiting");
}

/// What every session of the member shares.
struct Member {
    env: Arc<env::MemberEnv>,
    links: Arc<AcceptedLinks>,
    /// The addresses the last resolution found; a session whose address left ends.
    wanted: RwLock<HashSet<SocketAddr>>,
    /// A session that lost its host asks for a fresh resolution: the name may point elsewhere.
    resolve_now: tokio::sync::Notify,
    drain: watch::Receiver<bool>,
}

/// One address's connection, re-dialled with backoff while the address is wanted and the
/// member is not draining.
async fn session(
    member: Arc<Member>,
    addr: SocketAddr,
    server_name: String,
    plugins: Vec<PluginSpec>,
) {
    let Member {
        env,
        links,
        wanted,
        resolve_now,
        drain,
    } = &*member;
    let mut backoff = Backoff::new();
    loop {
        if *drain.borrow() || !wanted.read().contains(&addr) {
            return;
        }
        match dial::connect(env, addr, &server_name).await {
            Ok(dialled) => {
                let launch = LaunchEnv {
                    address: addr.to_string(),
                    // Pool members prove the token instead (`token_proof`).
                    session_token: String::new(),
                    runner_name: env.member.clone(),
                };
                let membership = Membership {
                    pool: env.pool.clone(),
                    member: env.member.clone(),
                    runner_version: env.runner_version.clone(),
                    links: Some(links.clone()),
                    token_proof: Some(dialled.token_proof),
                };
                let served = serve_connection(
                    dialled.stream,
                    launch,
                    membership,
                    plugins.clone(),
                    None,
                    Some(drain.clone()),
                )
                .await;
                match served {
                    Ok(Ended::Drained) => return,
                    Ok(Ended::Closed) => {
                        tracing::warn!(host = %addr, "connection to the host ended; reconnecting");
                        links.note_failure(format!("the connection to {addr} ended"));
                        backoff.reset();
                    }
                    Err(err) => {
                        let why = explain(&err);
                        tracing::error!(host = %addr, "{why}");
                        links.note_failure(format!("{addr}: {why}"));
                    }
                }
            }
            Err(err) => {
                let why = error_chain(&err);
                tracing::warn!(host = %addr, "{why}");
                links.note_failure(format!("{addr}: {why}"));
            }
        }
        resolve_now.notify_one();
        let delay = backoff.next_delay();
        let mut draining = drain.clone();
        tokio::select! {
            _ = tokio::time::sleep(delay) => {}
            _ = draining.wait_for(|d| *d) => return,
        }
    }
}

/// What a failed connection means. Under TLS 1.3 a client learns that the host refused its
/// certificate only when it reads after the handshake, so the alert surfaces as the end of
/// the `runner.hello` call: say what it means.
fn explain(err: &crate::RunnerError) -> String {
    let text = err.to_string();
    match text.split_once("received fatal alert: ") {
        Some((_, alert)) => {
            let alert = alert.split_whitespace().next().unwrap_or(alert);
            format!(
                "the host refused this member's client certificate (TLS alert {alert}): \
                 MAITOOL_POOL_CERT_FILE must chain to the CA of the host's client_ca_file ({text})"
            )
        }
        None => text,
    }
}

/// An error and its sources on one line.
fn error_chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
