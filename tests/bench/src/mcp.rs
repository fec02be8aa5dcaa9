//! Section 6: the example MCP server's `echo` called through the registry (`McpToolProvider`)
//! against a plain rmcp client calling another instance of the same server, in alternating
//! rounds. Both connections negotiate the same way (the host's `auto` lifecycle).

use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use maitool_host::ToolProvider;
use maitool_host::ToolRegistry;
use maitool_host::mcp_client::{McpConfig, McpServerConfig, McpToolProvider};
use rmcp::model::{CallToolRequestParams, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;

use crate::bins::Bins;
use crate::floor::echo_arguments;
use crate::host;
use crate::plan::Plan;
use crate::report::Report;
use crate::stats::{Latency, ratio};

const SECTION: &str = "6 mcp";

/// Runs the section into `report`.
pub async fn run(bins: &Bins, plan: &Plan, report: &mut Report) -> Result<()> {
    let mut server = McpServerConfig::stdio(
        "bench",
        bins.mcp_server.display().to_string(),
        Vec::<String>::new(),
    );
    server.env.insert("RUST_LOG".into(), "warn".into());
    let provider = McpToolProvider::start(McpConfig {
        enable: true,
        servers: vec![server],
        ..McpConfig::default()
    })
    .await?;
    let registry = ToolRegistry::new();
    registry.register_provider(provider.clone());
    let direct = direct_client(bins).await?;
    let outcome = measure(&registry, &direct, plan, report).await;
    let _ = direct.cancel().await;
    if let Err(err) = provider.close().await {
        tracing::warn!("the MCP provider did not close cleanly: {err}");
    }
    outcome
}

async fn measure(
    registry: &ToolRegistry,
    direct: &RunningService<RoleClient, ()>,
    plan: &Plan,
    report: &mut Report,
) -> Result<()> {
    let mut scratch = Vec::new();
    host::sequential(registry, "echo", plan.mcp_per_round, &mut scratch)
        .await
        .context("echo through the registry")?;
    direct_calls(direct, plan.mcp_per_round, &mut scratch).await?;
    let (mut through, mut plain) = (Vec::new(), Vec::new());
    for _ in 0..plan.mcp_rounds {
        host::sequential(registry, "echo", plan.mcp_per_round, &mut through).await?;
        direct_calls(direct, plan.mcp_per_round, &mut plain).await?;
    }
    let (through, plain) = (Latency::of(&mut through), Latency::of(&mut plain));
    report.add(
        SECTION,
        "mcp_registry_p50_us",
        "echo through the registry, p50",
        through.p50_us,
        "us",
    );
    report.add(
        SECTION,
        "mcp_registry_p99_us",
        "echo through the registry, p99",
        through.p99_us,
        "us",
    );
    report.add(
        SECTION,
        "mcp_direct_p50_us",
        "echo with a plain rmcp client, p50",
        plain.p50_us,
        "us",
    );
    report.add(
        SECTION,
        "mcp_direct_p99_us",
        "echo with a plain rmcp client, p99",
        plain.p99_us,
        "us",
    );
    report.add(
        SECTION,
        "mcp_overhead_ratio",
        "registry p50 / direct p50",
        ratio(through.p50_us, plain.p50_us),
        "x",
    );
    Ok(())
}

/// An rmcp client of a second instance of the example server.
async fn direct_client(bins: &Bins) -> Result<RunningService<RoleClient, ()>> {
    let mut command = tokio::process::Command::new(&bins.mcp_server);
    command.env("RUST_LOG", "warn").kill_on_drop(true);
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .context("cannot start the MCP server")?;
    let lifecycle = ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        legacy_version: Some(ProtocolVersion::V_2025_11_25),
    };
    let client = tokio::time::timeout(
        Duration::from_secs(30),
        ().serve_with_lifecycle(transport, lifecycle),
    )
    .await
    .context("the MCP handshake did not finish within 30 s")??;
    Ok(client)
}

async fn direct_calls(
    client: &RunningService<RoleClient, ()>,
    count: usize,
    samples: &mut Vec<Duration>,
) -> Result<()> {
    for _ in 0..count {
        let started = Instant::now();
        let params = CallToolRequestParams::new("echo").with_arguments(echo_arguments());
        let result = client
            .call_tool(params)
            .await
            .context("direct tools/call")?;
        samples.push(started.elapsed());
        if result.is_error == Some(true) {
            bail!("the direct echo call failed: {result:?}");
        }
    }
    Ok(())
}
