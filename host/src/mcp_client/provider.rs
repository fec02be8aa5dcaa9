//! [`McpToolProvider`]: the tools of every configured MCP server behind one
//! [`ToolProvider`].

use std::sync::Arc;

use async_trait::async_trait;
use maitool_protocol::{
    JsonObject, ProviderType, ToolAvailabilityContext, ToolExecutionContext, ToolExecutionResult,
    ToolInvocation, ToolSpec,
};
use parking_lot::Mutex;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::call::call_tool;
use super::config::{McpConfig, McpConfigError};
use super::result::CallOrigin;
use super::shared::Shared;
use super::slot::ServerSlot;
use super::spec::PROVIDER_NAME;
use super::status::McpServerStatus;
use super::supervisor::supervise;
use crate::provider::{ProviderError, ToolProvider, ToolSetVersion};

/// The tools of external MCP servers (`provider_name` `mcp`, type `mcp`).
///
/// [`start`](Self::start) connects every enabled server in parallel; each server then has
/// a supervisor task that refreshes its tools on `tools/list_changed`, withdraws them when
/// the server dies and reconnects with backoff. [`close`](ToolProvider::close) stops every
/// server (stdio servers as a whole process group).
#[derive(Debug)]
pub struct McpToolProvider {
    shared: Arc<Shared>,
    tasks: Mutex<Vec<JoinHandle<()>>>,
    /// Completes when every enabled server's first connection attempt has ended, connected
    /// or failed (already complete for a provider started with [`start`](Self::start)).
    first_attempts: FirstAttempts,
}

/// Every server's first attempt, shared by whoever waits for it.
type FirstAttempts = futures::future::Shared<futures::future::BoxFuture<'static, ()>>;

impl McpToolProvider {
    /// Validates `config`, connects all enabled servers in parallel (each within its
    /// connect timeout) and returns once every one has connected or failed. A failing
    /// server is recorded in [`status`](Self::status) and retried in the background; only
    /// an invalid configuration is an error. With `enable = false` nothing is started and
    /// every server reports `disabled`.
    pub async fn start(config: McpConfig) -> Result<Arc<McpToolProvider>, McpConfigError> {
        Self::start_erased(config, true).await
    }

    /// Like [`start`](Self::start), but returns as soon as every server's supervisor runs,
    /// without waiting for any connection: servers that come up later add their tools
    /// (bumping the tool-set version), so a slow or hung server delays nothing.
    pub async fn start_in_background(
        config: McpConfig,
    ) -> Result<Arc<McpToolProvider>, McpConfigError> {
        Self::start_erased(config, false).await
    }

    /// Boxed in this crate, so that the MCP client's code is compiled here once rather than
    /// in every crate that awaits [`start`](Self::start) (see `Host::start_erased`).
    fn start_erased(
        config: McpConfig,
        wait: bool,
    ) -> futures::future::BoxFuture<'static, Result<Arc<McpToolProvider>, McpConfigError>> {
        Box::pin(Self::start_inner(config, wait))
    }

    async fn start_inner(
        config: McpConfig,
        wait: bool,
    ) -> Result<Arc<McpToolProvider>, McpConfigError> {
        let servers = if config.enable {
            config.effective_servers()?
        } else {
            config.servers.clone()
        };
        let slots: Vec<Arc<ServerSlot>> = servers
            .into_iter()
            .enumerate()
            .map(|(index, server)| {
                let active = config.enable && server.enabled;
                Arc::new(ServerSlot::new(index, server, active))
            })
            .collect();
        let shared = Arc::new(Shared::new(config, slots));

        let mut tasks = Vec::new();
        let mut first_attempts = Vec::new();
        for slot in shared
            .slots
            .iter()
            .filter(|slot| slot.config.enabled && shared.config.enable)
        {
            let (done, first_attempt) = oneshot::channel();
            first_attempts.push(first_attempt);
            tasks.push(tokio::spawn(supervise(shared.clone(), slot.clone(), done)));
        }
        // A supervisor that panicked drops its sender; that also counts as done.
        let first_attempts: FirstAttempts = futures::FutureExt::shared(Box::pin(async move {
            futures::future::join_all(first_attempts).await;
        })
            as futures::future::BoxFuture<'static, ()>);
        if wait {
            first_attempts.clone().await;
        }
        Ok(Arc::new(McpToolProvider {
            shared,
            tasks: Mutex::new(tasks),
            first_attempts,
        }))
    }

    /// Completes when every enabled server's first connection attempt has ended: connected,
    /// or failed (refused, crashed, timed out). A server that hangs holds it for its
    /// `connect_timeout_seconds`.
    pub fn first_attempts(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        self.first_attempts.clone()
    }

    /// One entry per configured server (disabled ones included), in config order.
    pub fn status(&self) -> Vec<McpServerStatus> {
        let catalog = self.shared.catalog();
        self.shared
            .slots
            .iter()
            .map(|slot| slot.status(catalog.exposed_count(slot.index)))
            .collect()
    }

    /// The exposed tools, in config order, without copying the list.
    pub fn tool_specs(&self) -> Arc<Vec<Arc<ToolSpec>>> {
        self.shared.catalog().specs()
    }

    /// Calls `mcp_tool` by its name on the server `server`, bypassing the exposed tool set
    /// (prefixes and collisions do not apply): for diagnostics, and for tools a server
    /// does not list. The outcome is mapped exactly as in [`ToolProvider::invoke`]; the
    /// result's `tool_name` is `mcp_tool`.
    pub async fn call_on_server(
        &self,
        server: &str,
        mcp_tool: &str,
        arguments: JsonObject,
    ) -> Result<ToolExecutionResult, ProviderError> {
        let slot = self
            .shared
            .slots
            .iter()
            .find(|slot| slot.config.name == server)
            .ok_or_else(|| ProviderError::Other(format!("no MCP server named '{server}'")))?;
        self.call_slot(slot, mcp_tool, mcp_tool, arguments).await
    }

    async fn call_slot(
        &self,
        slot: &ServerSlot,
        tool_name: &str,
        mcp_tool: &str,
        arguments: JsonObject,
    ) -> Result<ToolExecutionResult, ProviderError> {
        let Some(live) = slot.live() else {
            // The server died between routing and now; its tools are being withdrawn.
            return Err(ProviderError::Unavailable(format!(
                "MCP server '{}' is not connected ({})",
                slot.config.name,
                slot.state().as_str()
            )));
        };
        let origin = CallOrigin {
            tool_name,
            mcp_tool_name: mcp_tool,
            server_name: &slot.config.name,
            protocol_version: &live.protocol_version,
        };
        Ok(call_tool(
            &live.peer,
            &origin,
            arguments,
            slot.config.idle_timeout(),
            slot.config.read_timeout(),
        )
        .await)
    }
}

impl Drop for McpToolProvider {
    fn drop(&mut self) {
        // Supervisors close their connections when they see this; if the runtime is gone
        // instead, dropping their sessions kills the stdio process groups.
        self.shared.shutdown.cancel();
    }
}

#[async_trait]
impl ToolProvider for McpToolProvider {
    fn provider_name(&self) -> &str {
        PROVIDER_NAME
    }

    fn provider_type(&self) -> ProviderType {
        ProviderType::Mcp
    }

    async fn list_tools(
        &self,
        _ctx: &ToolAvailabilityContext,
    ) -> Result<Vec<Arc<ToolSpec>>, ProviderError> {
        Ok(self.tool_specs().as_ref().clone())
    }

    async fn invoke(
        &self,
        invocation: ToolInvocation,
        _ctx: &ToolExecutionContext,
    ) -> Result<ToolExecutionResult, ProviderError> {
        let catalog = self.shared.catalog();
        let route = catalog
            .route(&invocation.tool_name)
            .ok_or_else(|| ProviderError::ToolNotFound(invocation.tool_name.clone()))?;
        let slot = &self.shared.slots[route.server];
        self.call_slot(
            slot,
            &invocation.tool_name,
            &route.mcp_name,
            invocation.arguments,
        )
        .await
    }

    async fn close(&self) -> Result<(), ProviderError> {
        self.shared.shutdown.cancel();
        let tasks = std::mem::take(&mut *self.tasks.lock());
        for task in tasks {
            if let Err(err) = task.await
                && err.is_panic()
            {
                tracing::error!("MCP server supervisor panicked: {err}");
            }
        }
        self.shared.publish();
        Ok(())
    }

    async fn declared_tool_names(&self) -> Result<Vec<String>, ProviderError> {
        Ok(self
            .tool_specs()
            .iter()
            .map(|spec| spec.name.clone())
            .collect())
    }

    async fn available_tool(
        &self,
        name: &str,
        _ctx: &ToolAvailabilityContext,
    ) -> Result<Option<Arc<ToolSpec>>, ProviderError> {
        Ok(self.shared.catalog().spec(name).cloned())
    }

    fn available_tool_now(
        &self,
        name: &str,
        _ctx: &ToolExecutionContext,
    ) -> Option<Result<Option<Arc<ToolSpec>>, ProviderError>> {
        Some(Ok(self.shared.catalog().spec(name).cloned()))
    }

    fn tool_set_version(&self) -> Option<ToolSetVersion> {
        Some(self.shared.version().clone())
    }

    fn tool_source(&self, name: &str) -> Option<String> {
        let catalog = self.shared.catalog();
        let route = catalog.route(name)?;
        Some(self.shared.slots[route.server].config.name.clone())
    }
}
