//! Small real providers for the registry tests, each with its own state and behaviour.

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use async_trait::async_trait;
use maitool_protocol::{
    ProviderType, ToolAvailabilityContext, ToolExecutionContext, ToolExecutionResult,
    ToolInvocation, ToolSpec,
};
use parking_lot::{Mutex, RwLock};

use super::spec;
use crate::provider::{ProviderError, ToolProvider, ToolSetVersion};

/// An in-memory tool store: its tools answer with their name, provider and argument `n`.
pub(super) struct StoreProvider {
    pub(super) name: String,
    pub(super) tools: RwLock<Vec<ToolSpec>>,
    pub(super) version: ToolSetVersion,
    pub(super) list_calls: AtomicUsize,
    pub(super) declare_calls: AtomicUsize,
    pub(super) invocations: AtomicUsize,
    pub(super) closed: AtomicBool,
}

impl StoreProvider {
    pub(super) fn new(name: &str, tools: &[&str]) -> Arc<Self> {
        Arc::new(Self {
            name: name.to_owned(),
            tools: RwLock::new(tools.iter().map(|tool| spec(tool, name)).collect()),
            version: ToolSetVersion::new(),
            list_calls: AtomicUsize::new(0),
            declare_calls: AtomicUsize::new(0),
            invocations: AtomicUsize::new(0),
            closed: AtomicBool::new(false),
        })
    }

    pub(super) fn add(&self, tool: ToolSpec, bump: bool) {
        self.tools.write().push(tool);
        if bump {
            self.version.bump();
        }
    }
}

#[async_trait]
impl ToolProvider for StoreProvider {
    fn provider_name(&self) -> &str {
        &self.name
    }

    fn provider_type(&self) -> ProviderType {
        ProviderType::Builtin
    }

    async fn list_tools(
        &self,
        _ctx: &ToolAvailabilityContext,
    ) -> Result<Vec<std::sync::Arc<ToolSpec>>, ProviderError> {
        self.list_calls.fetch_add(1, Ordering::Relaxed);
        Ok(shared(self.tools.read().clone()))
    }

    async fn invoke(
        &self,
        invocation: ToolInvocation,
        _ctx: &ToolExecutionContext,
    ) -> Result<ToolExecutionResult, ProviderError> {
        self.invocations.fetch_add(1, Ordering::Relaxed);
        let known = self
            .tools
            .read()
            .iter()
            .any(|tool| tool.name == invocation.tool_name);
        if !known {
            return Err(ProviderError::ToolNotFound(invocation.tool_name));
        }
        // `tool_name` is left empty on purpose: the registry fills it in.
        Ok(ToolExecutionResult {
            success: true,
            content: format!(
                "{} by {} n={}",
                invocation.tool_name,
                self.name,
                invocation
                    .arguments
                    .get("n")
                    .map_or_else(|| "-".to_owned(), ToString::to_string)
            ),
            ..ToolExecutionResult::default()
        })
    }

    async fn close(&self) -> Result<(), ProviderError> {
        self.closed.store(true, Ordering::SeqCst);
        Ok(())
    }

    async fn declared_tool_names(&self) -> Result<Vec<String>, ProviderError> {
        self.declare_calls.fetch_add(1, Ordering::Relaxed);
        Ok(self.tools.read().iter().map(|t| t.name.clone()).collect())
    }

    async fn available_tool(
        &self,
        name: &str,
        _ctx: &ToolAvailabilityContext,
    ) -> Result<Option<std::sync::Arc<ToolSpec>>, ProviderError> {
        Ok(self
            .tools
            .read()
            .iter()
            .find(|tool| tool.name == name && tool.enabled)
            .map(|tool| std::sync::Arc::new(tool.clone())))
    }

    fn tool_set_version(&self) -> Option<ToolSetVersion> {
        Some(self.version.clone())
    }
}

/// Exposes `group_poll` in group chats only; relies on the default `is_available`. It
/// answers availability at once, from the execution context (`available_tool_now`).
pub(super) struct GroupOnlyProvider;

#[async_trait]
impl ToolProvider for GroupOnlyProvider {
    fn provider_name(&self) -> &str {
        "groups"
    }

    fn provider_type(&self) -> ProviderType {
        ProviderType::Plugin
    }

    async fn list_tools(
        &self,
        ctx: &ToolAvailabilityContext,
    ) -> Result<Vec<std::sync::Arc<ToolSpec>>, ProviderError> {
        Ok(shared(match ctx.is_group_chat {
            Some(true) => vec![spec("group_poll", "groups")],
            _ => Vec::new(),
        }))
    }

    async fn invoke(
        &self,
        invocation: ToolInvocation,
        ctx: &ToolExecutionContext,
    ) -> Result<ToolExecutionResult, ProviderError> {
        Ok(ToolExecutionResult::success(
            invocation.tool_name,
            format!("poll in {}", ctx.group_id),
        ))
    }

    async fn declared_tool_names(&self) -> Result<Vec<String>, ProviderError> {
        Ok(vec!["group_poll".to_owned()])
    }

    fn available_tool_now(
        &self,
        name: &str,
        ctx: &ToolExecutionContext,
    ) -> Option<Result<Option<std::sync::Arc<ToolSpec>>, ProviderError>> {
        let listed = name == "group_poll" && ctx.is_group_chat == Some(true);
        Some(Ok(listed.then(|| std::sync::Arc::new(spec(name, "groups")))))
    }
}

/// Panics whenever asked whether a tool is available, at once or not.
pub(super) struct PanickingCheckProvider;

#[async_trait]
impl ToolProvider for PanickingCheckProvider {
    fn provider_name(&self) -> &str {
        "check_panicky"
    }

    fn provider_type(&self) -> ProviderType {
        ProviderType::Plugin
    }

    async fn list_tools(
        &self,
        _ctx: &ToolAvailabilityContext,
    ) -> Result<Vec<std::sync::Arc<ToolSpec>>, ProviderError> {
        Ok(shared(vec![spec("checked", "check_panicky")]))
    }

    async fn invoke(
        &self,
        invocation: ToolInvocation,
        _ctx: &ToolExecutionContext,
    ) -> Result<ToolExecutionResult, ProviderError> {
        Ok(ToolExecutionResult::success(invocation.tool_name, "ran"))
    }

    fn available_tool_now(
        &self,
        name: &str,
        _ctx: &ToolExecutionContext,
    ) -> Option<Result<Option<std::sync::Arc<ToolSpec>>, ProviderError>> {
        panic!("availability check exploded: {name}");
    }
}

/// A provider whose backend is down: every call but the declaration fails.
pub(super) struct FailingProvider {
    pub(super) fail_availability: bool,
}

#[async_trait]
impl ToolProvider for FailingProvider {
    fn provider_name(&self) -> &str {
        "failing"
    }

    fn provider_type(&self) -> ProviderType {
        ProviderType::Mcp
    }

    async fn list_tools(
        &self,
        _ctx: &ToolAvailabilityContext,
    ) -> Result<Vec<std::sync::Arc<ToolSpec>>, ProviderError> {
        Err(ProviderError::Unavailable("backend down".to_owned()))
    }

    async fn invoke(
        &self,
        _invocation: ToolInvocation,
        _ctx: &ToolExecutionContext,
    ) -> Result<ToolExecutionResult, ProviderError> {
        Err(ProviderError::Other("connection reset".to_owned()))
    }

    async fn close(&self) -> Result<(), ProviderError> {
        Err(ProviderError::Other("socket busy".to_owned()))
    }

    async fn declared_tool_names(&self) -> Result<Vec<String>, ProviderError> {
        Ok(vec!["flaky".to_owned()])
    }

    async fn available_tool(
        &self,
        name: &str,
        _ctx: &ToolAvailabilityContext,
    ) -> Result<Option<std::sync::Arc<ToolSpec>>, ProviderError> {
        if self.fail_availability {
            Err(ProviderError::Unavailable(
                "health check refused".to_owned(),
            ))
        } else {
            Ok(Some(std::sync::Arc::new(spec(name, "flaky"))))
        }
    }
}

/// Panics in `invoke` and `close`, and in `list_tools` too when `panic_on_list`.
pub(super) struct PanickingProvider {
    pub(super) name: &'static str,
    pub(super) panic_on_list: bool,
}

#[async_trait]
impl ToolProvider for PanickingProvider {
    fn provider_name(&self) -> &str {
        self.name
    }

    fn provider_type(&self) -> ProviderType {
        ProviderType::Plugin
    }

    async fn list_tools(
        &self,
        _ctx: &ToolAvailabilityContext,
    ) -> Result<Vec<std::sync::Arc<ToolSpec>>, ProviderError> {
        if self.panic_on_list {
            panic!("listing exploded");
        }
        Ok(shared(vec![spec("boom", self.name)]))
    }

    async fn invoke(
        &self,
        invocation: ToolInvocation,
        _ctx: &ToolExecutionContext,
    ) -> Result<ToolExecutionResult, ProviderError> {
        panic!("invoke exploded: {}", invocation.tool_name);
    }

    async fn close(&self) -> Result<(), ProviderError> {
        panic!("close exploded");
    }
}

/// Never answers its metadata calls.
pub(super) struct HangingProvider;

#[async_trait]
impl ToolProvider for HangingProvider {
    fn provider_name(&self) -> &str {
        "hanging"
    }

    fn provider_type(&self) -> ProviderType {
        ProviderType::Mcp
    }

    async fn list_tools(
        &self,
        _ctx: &ToolAvailabilityContext,
    ) -> Result<Vec<std::sync::Arc<ToolSpec>>, ProviderError> {
        std::future::pending().await
    }

    async fn invoke(
        &self,
        _invocation: ToolInvocation,
        _ctx: &ToolExecutionContext,
    ) -> Result<ToolExecutionResult, ProviderError> {
        std::future::pending().await
    }
}

/// Fails its first `failures` declarations, then declares `late_tool`.
pub(super) struct SlowStartProvider {
    pub(super) failures: AtomicUsize,
    pub(super) declare_calls: AtomicUsize,
}

#[async_trait]
impl ToolProvider for SlowStartProvider {
    fn provider_name(&self) -> &str {
        "slow_start"
    }

    fn provider_type(&self) -> ProviderType {
        ProviderType::Plugin
    }

    async fn list_tools(
        &self,
        _ctx: &ToolAvailabilityContext,
    ) -> Result<Vec<std::sync::Arc<ToolSpec>>, ProviderError> {
        Ok(shared(vec![spec("late_tool", "slow_start")]))
    }

    async fn invoke(
        &self,
        invocation: ToolInvocation,
        _ctx: &ToolExecutionContext,
    ) -> Result<ToolExecutionResult, ProviderError> {
        Ok(ToolExecutionResult::success(invocation.tool_name, "late"))
    }

    async fn declared_tool_names(&self) -> Result<Vec<String>, ProviderError> {
        self.declare_calls.fetch_add(1, Ordering::SeqCst);
        let left = self.failures.load(Ordering::SeqCst);
        if left > 0 {
            self.failures.store(left - 1, Ordering::SeqCst);
            return Err(ProviderError::Unavailable(
                "runner still starting".to_owned(),
            ));
        }
        Ok(vec!["late_tool".to_owned()])
    }
}

/// Collects formatted log output.
#[derive(Clone, Default)]
pub(super) struct Captured(Arc<Mutex<Vec<u8>>>);

impl io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Captured {
    pub(super) fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock()).into_owned()
    }
}

/// Specs as a provider hands them out: shared.
fn shared(specs: Vec<ToolSpec>) -> Vec<std::sync::Arc<ToolSpec>> {
    specs.into_iter().map(std::sync::Arc::new).collect()
}
