//! The [`ToolProvider`] trait: one source of tools behind the unified model.

use std::sync::Arc;

use async_trait::async_trait;
use maitool_protocol::{
    ProviderType, ToolAvailabilityContext, ToolExecutionContext, ToolExecutionResult,
    ToolInvocation, ToolSpec,
};
use tokio::sync::watch;

/// An error a provider raises instead of returning a result. The registry turns it into a
/// failed [`ToolExecutionResult`] that names the tool and this cause.
#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    /// The provider does not have the tool (any more).
    #[error("tool not found: {0}")]
    ToolNotFound(String),
    /// The provider's backend (runner, server, store) is not available.
    #[error("{0}")]
    Unavailable(String),
    /// Anything else.
    #[error("{0}")]
    Other(String),
}

/// A provider's tool-set version: bumped every time the set of tools the provider may list
/// changes (a runner registered components, an MCP server reconnected, ...). The registry
/// rebuilds its routing index only when a version moved, so routing never re-lists providers
/// on the invoke path.
#[derive(Debug, Clone)]
pub struct ToolSetVersion {
    sender: Arc<watch::Sender<u64>>,
}

impl Default for ToolSetVersion {
    fn default() -> Self {
        Self::new()
    }
}

impl ToolSetVersion {
    /// A version starting at 0.
    pub fn new() -> Self {
        Self {
            sender: Arc::new(watch::Sender::new(0)),
        }
    }

    /// Marks the tool set as changed.
    pub fn bump(&self) {
        self.sender.send_modify(|version| *version += 1);
    }

    /// The current version.
    pub fn current(&self) -> u64 {
        *self.sender.borrow()
    }

    /// A receiver that wakes on every change.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.sender.subscribe()
    }
}

/// One source of tools: plugins, built-ins, MCP servers, or anything an embedder adds.
#[async_trait]
pub trait ToolProvider: Send + Sync + 'static {
    /// Unique name of the provider in a registry, e.g. `plugin_runtime`.
    fn provider_name(&self) -> &str;

    /// The kind of provider.
    fn provider_type(&self) -> ProviderType;

    /// The tools this provider exposes in the given context.
    ///
    /// Specs are shared (`Arc`): a provider keeps its specs and hands out references, so that
    /// listing thousands of tools for every model request copies pointers, not schemas.
    async fn list_tools(
        &self,
        ctx: &ToolAvailabilityContext,
    ) -> Result<Vec<Arc<ToolSpec>>, ProviderError>;

    /// Runs one tool. A tool's own failure is an `Ok` result with `success = false`; an `Err`
    /// means the provider could not run the tool at all.
    async fn invoke(
        &self,
        invocation: ToolInvocation,
        ctx: &ToolExecutionContext,
    ) -> Result<ToolExecutionResult, ProviderError>;

    /// Runs a tool the registry has just found here with [`available_tool`]: `spec` is what
    /// that returned for this call's context. The default calls [`invoke`]; a provider whose
    /// `invoke` would look the tool up and check its availability again can skip that.
    ///
    /// [`available_tool`]: Self::available_tool
    /// [`invoke`]: Self::invoke
    async fn invoke_available(
        &self,
        spec: Arc<ToolSpec>,
        invocation: ToolInvocation,
        ctx: &ToolExecutionContext,
    ) -> Result<ToolExecutionResult, ProviderError> {
        let _ = spec;
        self.invoke(invocation, ctx).await
    }

    /// Releases connections, processes and other resources.
    async fn close(&self) -> Result<(), ProviderError> {
        Ok(())
    }

    /// Every tool name this provider may expose in *some* context, for the routing index.
    /// The default lists the tools of an empty context; providers whose listing depends on
    /// the context should override it.
    async fn declared_tool_names(&self) -> Result<Vec<String>, ProviderError> {
        let specs = self.list_tools(&ToolAvailabilityContext::default()).await?;
        Ok(specs.iter().map(|spec| spec.name.clone()).collect())
    }

    /// The named tool's spec if it is listed and enabled in this context, else `None`. The
    /// registry routes with it and checks the call's arguments against its
    /// `parameters_schema` before dispatch. The default lists all tools; providers with an
    /// index should answer in O(1) and return the same `Arc` they list, so that the registry's
    /// compiled argument validator is reused.
    async fn available_tool(
        &self,
        name: &str,
        ctx: &ToolAvailabilityContext,
    ) -> Result<Option<Arc<ToolSpec>>, ProviderError> {
        let specs = self.list_tools(ctx).await?;
        Ok(specs
            .into_iter()
            .find(|spec| spec.name == name && spec.enabled))
    }

    /// [`available_tool`] for a call made in `ctx`, if the provider can tell at once; `None`
    /// if it must be asked asynchronously. Before every call, the registry asks this first and
    /// calls `available_tool` with `ctx.availability()` only on `None`. The default is `None`.
    ///
    /// Deriving the availability context copies five strings, and an `async` answer costs a
    /// boxed future: a provider that answers from memory saves both here, on every call. The
    /// answer must be the one `available_tool` would give in `ctx.availability()`.
    ///
    /// [`available_tool`]: Self::available_tool
    fn available_tool_now(
        &self,
        name: &str,
        ctx: &ToolExecutionContext,
    ) -> Option<Result<Option<Arc<ToolSpec>>, ProviderError>> {
        let _ = (name, ctx);
        None
    }

    /// Whether the named tool is listed and enabled in this context: `available_tool` is
    /// `Some`. Implement `available_tool` rather than this.
    async fn is_available(
        &self,
        name: &str,
        ctx: &ToolAvailabilityContext,
    ) -> Result<bool, ProviderError> {
        Ok(self.available_tool(name, ctx).await?.is_some())
    }

    /// The provider's tool-set version, or `None` when its set of declared names never changes.
    fn tool_set_version(&self) -> Option<ToolSetVersion> {
        None
    }

    /// Where the declared tool `name` comes from within this provider (a plugin id, an MCP
    /// server's name), for the name the registry gives it when an earlier provider declares
    /// a tool of the same name: `<provider_type>_<source>_<name>` (MaiBot 1.3's rule, see
    /// [`tool_name`](crate::tool_name)). The default, `None`, uses the provider's name.
    fn tool_source(&self, name: &str) -> Option<String> {
        let _ = name;
        None
    }

    /// Why a tool this provider declares is not offered to this call, as the failed result
    /// the caller gets: for example `tool NAME is hidden: ...`, or a tool restricted to other
    /// platforms than the call's; or what a name that is no tool of this provider is instead
    /// (a plugin's command, event handler, hook handler or API: what it is and how it runs).
    /// The registry asks only when no provider had the tool available for the call (the
    /// providers declaring the name first, then all), so that the caller reads this cause
    /// instead of `tool not found: NAME`. The default is `None`.
    fn refusal(&self, name: &str, ctx: &ToolExecutionContext) -> Option<ToolExecutionResult> {
        let _ = (name, ctx);
        None
    }
}
