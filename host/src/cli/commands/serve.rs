//! `maitool serve`.

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result, anyhow};
use maitool_host::control::ControlServer;
use maitool_host::{Host, LoadedConfig};

use crate::cli::args::Cli;

pub(super) async fn serve(cli: &Cli, config: LoadedConfig) -> Result<ExitCode> {
    let socket = cli.control_socket.clone().unwrap_or_else(|| config.config.host.control_socket.clone());
    let host = Arc::new(Host::start(config).await.context("cannot start the host")?);
    let control = match ControlServer::start(&socket, host.clone()).await {
        Ok(control) => control,
        Err(err) => {
            host.shutdown().await;
            return Err(anyhow!(err).context(format!("cannot open the control socket {}", socket.display())));
        }
    };
    let tools = host.registry.list_tools(&Default::default()).await.len();
    tracing::info!(control = %control.path().display(), tools, "maitool is serving");
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    tokio::select! {
        _ = tokio::signal::ctrl_c() => tracing::info!("SIGINT: shutting down"),
        _ = terminate.recv() => tracing::info!("SIGTERM: shutting down"),
    }
    drop(control);
    host.shutdown().await;
    Ok(ExitCode::SUCCESS)
}

