//! Tests of the registry through small but real providers, each keeping its own state.

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use maitool_protocol::{
    JsonObject, ProviderType, ToolAvailabilityContext, ToolExecutionContext, ToolExecutionResult,
    ToolInvocation, ToolSpec,
};
use parking_lot::{Mutex, RwLock};
use serde_json::json;

use super::{CloseError, ToolRegistry};
use crate::provider::{ProviderError, ToolProvider, ToolSetVersion};

fn spec(name: &str, provider: &str) -> ToolSpec {
    let schema = json!({
        "type": "object",
        "properties": {"n": {"type": "integer"}},
    });
    let serde_json::Value::Object(schema) = schema else {
        unreachable!("literal object")
    };
    ToolSpec::new(name, format!("  {name} of {provider}  "))
        .with_parameters(schema)
        .with_provider(provider, ProviderType::Builtin)
}

fn call(name: &str, n: i64) -> ToolInvocation {
    let mut arguments = JsonObject::new();
    arguments.insert("n".to_owned(), json!(n));
    ToolInvocation::new(name, arguments).with_call_id(format!("call-{n}"))
}

fn private_chat() -> ToolExecutionContext {
    ToolExecutionContext {
        is_group_chat: Some(false),
        user_id: "u1".to_owned(),
        ..ToolExecutionContext::default()
    }
}

fn group_chat() -> ToolExecutionContext {
    ToolExecutionContext {
        is_group_chat: Some(true),
        group_id: "g1".to_owned(),
        ..ToolExecutionContext::default()
    }
}

fn names(specs: &[ToolSpec]) -> Vec<&str> {
    specs.iter().map(|spec| spec.name.as_str()).collect()
}

/// An in-memory tool store: its tools answer with their name, provider and argument `n`.
struct StoreProvider {
    name: String,
    tools: RwLock<Vec<ToolSpec>>,
    version: ToolSetVersion,
    list_calls: AtomicUsize,
    declare_calls: AtomicUsize,
    invocations: AtomicUsize,
    closed: AtomicBool,
}

impl StoreProvider {
    fn new(name: &str, tools: &[&str]) -> Arc<Self> {
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

    fn add(&self, tool: ToolSpec, bump: bool) {
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
    ) -> Result<Vec<ToolSpec>, ProviderError> {
        self.list_calls.fetch_add(1, Ordering::Relaxed);
        Ok(self.tools.read().clone())
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
                invocation.tool_name, self.name, invocation.arguments["n"]
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

    async fn is_available(
        &self,
        name: &str,
        _ctx: &ToolAvailabilityContext,
    ) -> Result<bool, ProviderError> {
        Ok(self
            .tools
            .read()
            .iter()
            .any(|tool| tool.name == name && tool.enabled))
    }

    fn tool_set_version(&self) -> Option<ToolSetVersion> {
        Some(self.version.clone())
    }
}

/// Exposes `group_poll` in group chats only; relies on the default `is_available`.
struct GroupOnlyProvider;

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
    ) -> Result<Vec<ToolSpec>, ProviderError> {
        Ok(match ctx.is_group_chat {
            Some(true) => vec![spec("group_poll", "groups")],
            _ => Vec::new(),
        })
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
}

/// A provider whose backend is down: every call but the declaration fails.
struct FailingProvider {
    fail_availability: bool,
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
    ) -> Result<Vec<ToolSpec>, ProviderError> {
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

    async fn is_available(
        &self,
        _name: &str,
        _ctx: &ToolAvailabilityContext,
    ) -> Result<bool, ProviderError> {
        if self.fail_availability {
            Err(ProviderError::Unavailable(
                "health check refused".to_owned(),
            ))
        } else {
            Ok(true)
        }
    }
}

/// Panics in `invoke` and `close`, and in `list_tools` too when `panic_on_list`.
struct PanickingProvider {
    name: &'static str,
    panic_on_list: bool,
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
    ) -> Result<Vec<ToolSpec>, ProviderError> {
        if self.panic_on_list {
            panic!("listing exploded");
        }
        Ok(vec![spec("boom", self.name)])
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
struct HangingProvider;

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
    ) -> Result<Vec<ToolSpec>, ProviderError> {
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
struct SlowStartProvider {
    failures: AtomicUsize,
    declare_calls: AtomicUsize,
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
    ) -> Result<Vec<ToolSpec>, ProviderError> {
        Ok(vec![spec("late_tool", "slow_start")])
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
struct Captured(Arc<Mutex<Vec<u8>>>);

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
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock()).into_owned()
    }
}

#[tokio::test]
async fn registering_a_known_name_replaces_it_and_moves_it_last() {
    let registry = ToolRegistry::new();
    let old_a = StoreProvider::new("a", &["x"]);
    let b = StoreProvider::new("b", &["y"]);
    assert!(registry.register_provider(old_a.clone()).is_none());
    assert!(registry.register_provider(b).is_none());

    let replaced = registry
        .register_provider(StoreProvider::new("a", &["x2"]))
        .expect("a was registered");
    let replaced_ptr = Arc::as_ptr(&replaced) as *const ();
    assert_eq!(replaced_ptr, Arc::as_ptr(&old_a) as *const ());

    let order: Vec<String> = registry
        .providers()
        .iter()
        .map(|p| p.provider_name().to_owned())
        .collect();
    assert_eq!(order, ["b", "a"]);
    let ctx = ToolAvailabilityContext::default();
    assert_eq!(names(&registry.list_tools(&ctx).await), ["y", "x2"]);

    let result = registry.invoke(call("x2", 1), &private_chat()).await;
    assert!(result.success, "{result:?}");
    assert_eq!(result.content, "x2 by a n=1");
    let gone = registry.invoke(call("x", 1), &private_chat()).await;
    assert_eq!(gone.error_message, "tool not found: x");
    assert_eq!(old_a.invocations.load(Ordering::Relaxed), 0);
}

#[tokio::test]
async fn unregistering_removes_the_provider_and_its_tools() {
    let registry = ToolRegistry::new();
    registry.register_provider(StoreProvider::new("a", &["x"]));
    registry.register_provider(StoreProvider::new("b", &["y"]));
    // Build the routing index first, so that unregistering must invalidate it.
    assert!(registry.invoke(call("y", 1), &private_chat()).await.success);

    let removed = registry.unregister_provider("b").expect("b is registered");
    assert_eq!(removed.provider_name(), "b");
    assert!(registry.unregister_provider("b").is_none());

    let ctx = ToolAvailabilityContext::default();
    assert_eq!(names(&registry.list_tools(&ctx).await), ["x"]);
    assert!(!registry.has_tool("y", &ctx).await);
    let result = registry.invoke(call("y", 2), &private_chat()).await;
    assert_eq!(result.error_message, "tool not found: y");
}

#[tokio::test]
async fn tools_are_listed_in_registration_order_and_defined_for_models() {
    let registry = ToolRegistry::new();
    registry.register_provider(StoreProvider::new("c", &["c1", "c2"]));
    registry.register_provider(StoreProvider::new("a", &["a1"]));
    registry.register_provider(StoreProvider::new("b", &["b1", "b2"]));
    let ctx = ToolAvailabilityContext::default();

    let tools = registry.list_tools(&ctx).await;
    assert_eq!(names(&tools), ["c1", "c2", "a1", "b1", "b2"]);

    let definitions = registry.get_llm_definitions(&ctx).await;
    let defined: Vec<&str> = definitions.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(defined, ["c1", "c2", "a1", "b1", "b2"]);
    assert_eq!(definitions[2].description, "a1 of a");
    assert_eq!(definitions[2].parameters_schema, tools[2].parameters_schema);

    let found = registry.get_tool_spec("b1", &ctx).await.expect("b1 listed");
    assert_eq!(found.provider_name, "b");
    assert!(registry.get_tool_spec("zz", &ctx).await.is_none());
}

#[test]
fn moved_definitions_equal_the_specs_own_definitions() {
    let padded = ToolSpec {
        description: "  padded on the wire \n".to_owned(),
        parameters_schema: None,
        ..spec("padded", "p")
    };
    for tool in [spec("plain", "p"), padded] {
        let expected = tool.to_llm_definition();
        assert_eq!(super::listing::into_llm_definition(tool), expected);
    }
}

#[tokio::test]
async fn disabled_specs_are_neither_listed_nor_routed() {
    let registry = ToolRegistry::new();
    let store = StoreProvider::new("store", &["on"]);
    let mut off = spec("off", "store");
    off.enabled = false;
    store.add(off, false);
    registry.register_provider(store.clone());
    let ctx = ToolAvailabilityContext::default();

    assert_eq!(names(&registry.list_tools(&ctx).await), ["on"]);
    assert!(registry.get_tool_spec("off", &ctx).await.is_none());
    assert!(!registry.has_tool("off", &ctx).await);
    let result = registry.invoke(call("off", 1), &private_chat()).await;
    assert_eq!(result.error_message, "tool not found: off");
    assert_eq!(store.invocations.load(Ordering::Relaxed), 0);
}

#[tokio::test]
async fn the_first_registration_wins_a_duplicate_name_with_a_warning() {
    let log = Captured::default();
    let writer = log.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    let _log_guard = tracing::subscriber::set_default(subscriber);

    let registry = ToolRegistry::new();
    let first = StoreProvider::new("first", &["search", "only_first"]);
    let second = StoreProvider::new("second", &["search", "only_second"]);
    registry.register_provider(first.clone());
    registry.register_provider(second.clone());
    let ctx = ToolAvailabilityContext::default();

    let tools = registry.list_tools(&ctx).await;
    assert_eq!(names(&tools), ["search", "only_first", "only_second"]);
    assert_eq!(tools[0].provider_name, "first");
    let warning = log.text();
    assert!(
        warning.contains("duplicate tool name search")
            && warning.contains("kept_provider=first")
            && warning.contains("skipped_provider=second"),
        "{warning}"
    );

    let result = registry.invoke(call("search", 7), &private_chat()).await;
    assert_eq!(result.content, "search by first n=7");
    assert_eq!(second.invocations.load(Ordering::Relaxed), 0);
    assert_eq!(
        registry
            .get_tool_spec("search", &ctx)
            .await
            .unwrap()
            .provider_name,
        "first"
    );
}

#[tokio::test]
async fn an_unknown_tool_gets_a_not_found_result() {
    let registry = ToolRegistry::new();
    let empty = registry.invoke(call("nope", 1), &private_chat()).await;
    assert!(!empty.success);
    assert_eq!(empty.tool_name, "nope");
    assert_eq!(empty.error_message, "tool not found: nope");

    registry.register_provider(StoreProvider::new("a", &["x"]));
    let result = registry.invoke(call("nope", 1), &private_chat()).await;
    assert_eq!(result.error_message, "tool not found: nope");
}

#[tokio::test]
async fn a_provider_error_becomes_a_failed_result_naming_tool_and_cause() {
    let registry = ToolRegistry::new();
    registry.register_provider(Arc::new(FailingProvider {
        fail_availability: false,
    }));
    registry.register_provider(StoreProvider::new("store", &["ok"]));

    let result = registry.invoke(call("flaky", 1), &private_chat()).await;
    assert!(!result.success);
    assert_eq!(result.tool_name, "flaky");
    assert_eq!(result.error_message, "tool flaky failed: connection reset");

    // The failing listing is skipped; the others are still listed and served.
    let ctx = ToolAvailabilityContext::default();
    assert_eq!(names(&registry.list_tools(&ctx).await), ["ok"]);
    let ok = registry.invoke(call("ok", 2), &private_chat()).await;
    assert_eq!(ok.tool_name, "ok");
    assert_eq!(ok.content, "ok by store n=2");
}

#[tokio::test]
async fn a_failed_availability_check_is_reported_not_hidden() {
    let registry = ToolRegistry::new();
    registry.register_provider(Arc::new(FailingProvider {
        fail_availability: true,
    }));
    let result = registry.invoke(call("flaky", 1), &private_chat()).await;
    assert_eq!(
        result.error_message,
        "tool flaky failed: provider failing could not check availability: health check refused"
    );

    // A later provider that has the tool still gets it.
    registry.register_provider(StoreProvider::new("backup", &["flaky"]));
    let result = registry.invoke(call("flaky", 2), &private_chat()).await;
    assert_eq!(result.content, "flaky by backup n=2");
}

#[tokio::test]
async fn a_panicking_provider_fails_its_call_and_the_registry_keeps_serving() {
    let registry = ToolRegistry::new();
    registry.register_provider(Arc::new(PanickingProvider {
        name: "panicky",
        panic_on_list: false,
    }));
    registry.register_provider(Arc::new(PanickingProvider {
        name: "list_panicky",
        panic_on_list: true,
    }));
    registry.register_provider(StoreProvider::new("store", &["ok"]));
    let ctx = ToolAvailabilityContext::default();

    let result = registry.invoke(call("boom", 1), &private_chat()).await;
    assert!(!result.success);
    assert_eq!(
        result.error_message,
        "tool boom failed: provider panicky panicked: invoke exploded: boom"
    );

    // The provider that panics while listing is skipped; its sibling's `boom` remains.
    assert_eq!(names(&registry.list_tools(&ctx).await), ["boom", "ok"]);
    for n in 0..3 {
        let ok = registry.invoke(call("ok", n), &private_chat()).await;
        assert_eq!(ok.content, format!("ok by store n={n}"));
        let again = registry.invoke(call("boom", n), &private_chat()).await;
        assert!(again.error_message.contains("panicked"), "{again:?}");
    }
}

#[tokio::test]
async fn close_continues_past_failing_and_panicking_providers() {
    let registry = ToolRegistry::new();
    let before = StoreProvider::new("before", &["x"]);
    let after = StoreProvider::new("after", &["y"]);
    registry.register_provider(before.clone());
    registry.register_provider(Arc::new(FailingProvider {
        fail_availability: false,
    }));
    registry.register_provider(Arc::new(PanickingProvider {
        name: "panicky",
        panic_on_list: false,
    }));
    registry.register_provider(after.clone());

    let errors = registry.close().await;
    assert_eq!(
        errors,
        [
            CloseError {
                provider: "failing".to_owned(),
                cause: "socket busy".to_owned(),
            },
            CloseError {
                provider: "panicky".to_owned(),
                cause: "panicked: close exploded".to_owned(),
            },
        ]
    );
    assert_eq!(
        errors[0].to_string(),
        "provider failing failed to close: socket busy"
    );
    assert!(before.closed.load(Ordering::SeqCst));
    assert!(after.closed.load(Ordering::SeqCst));
}

#[tokio::test]
async fn availability_follows_the_callers_context() {
    let registry = ToolRegistry::new();
    registry.register_provider(Arc::new(GroupOnlyProvider));

    let private = registry
        .invoke(call("group_poll", 1), &private_chat())
        .await;
    assert_eq!(private.error_message, "tool not found: group_poll");
    let group = registry.invoke(call("group_poll", 1), &group_chat()).await;
    assert_eq!(group.content, "poll in g1");

    // With a later provider that has the tool everywhere, a private chat routes there while
    // a group chat still goes to the first registration.
    registry.register_provider(StoreProvider::new("everywhere", &["group_poll"]));
    let private = registry
        .invoke(call("group_poll", 2), &private_chat())
        .await;
    assert_eq!(private.content, "group_poll by everywhere n=2");
    let group = registry.invoke(call("group_poll", 2), &group_chat()).await;
    assert_eq!(group.content, "poll in g1");

    let private_ctx = private_chat().availability();
    let listed = registry.list_tools(&private_ctx).await;
    assert_eq!(listed[0].provider_name, "everywhere");
    let group_ctx = group_chat().availability();
    let listed = registry.list_tools(&group_ctx).await;
    assert_eq!(listed[0].provider_name, "groups");
}

#[tokio::test]
async fn the_routing_index_follows_provider_versions() {
    let registry = ToolRegistry::new();
    let store = StoreProvider::new("store", &["a"]);
    registry.register_provider(store.clone());
    assert!(registry.invoke(call("a", 1), &private_chat()).await.success);

    // Listed at once, but not routable until the provider announces the change.
    store.add(spec("b", "store"), false);
    let ctx = ToolAvailabilityContext::default();
    assert_eq!(names(&registry.list_tools(&ctx).await), ["a", "b"]);
    let stale = registry.invoke(call("b", 1), &private_chat()).await;
    assert_eq!(stale.error_message, "tool not found: b");

    store.version.bump();
    let routed = registry.invoke(call("b", 2), &private_chat()).await;
    assert_eq!(routed.content, "b by store n=2");
    assert_eq!(store.declare_calls.load(Ordering::Relaxed), 2);
}

#[tokio::test]
async fn routing_never_lists_providers_and_rebuilds_only_what_moved() {
    let registry = ToolRegistry::new();
    let stores: Vec<_> = (0..10)
        .map(|p| {
            let tools: Vec<String> = (0..50).map(|t| format!("p{p}_t{t}")).collect();
            let tools: Vec<&str> = tools.iter().map(String::as_str).collect();
            StoreProvider::new(&format!("p{p}"), &tools)
        })
        .collect();
    for store in &stores {
        registry.register_provider(store.clone());
    }

    for n in 0..200 {
        let tool = format!("p{}_t{}", n % 10, n % 50);
        let result = registry.invoke(call(&tool, n), &private_chat()).await;
        assert!(result.success, "{result:?}");
    }
    for store in &stores {
        assert_eq!(store.list_calls.load(Ordering::Relaxed), 0);
        assert_eq!(store.declare_calls.load(Ordering::Relaxed), 1);
    }

    // One provider moves: only it is asked again. A new provider: only it is asked.
    stores[3].version.bump();
    registry.register_provider(StoreProvider::new("late", &["late_tool"]));
    assert!(
        registry
            .invoke(call("late_tool", 1), &private_chat())
            .await
            .success
    );
    assert!(
        registry
            .invoke(call("p3_t0", 1), &private_chat())
            .await
            .success
    );
    for (p, store) in stores.iter().enumerate() {
        let expected = if p == 3 { 2 } else { 1 };
        assert_eq!(
            store.declare_calls.load(Ordering::Relaxed),
            expected,
            "p{p}"
        );
    }
}

#[tokio::test]
async fn a_failed_declaration_is_retried_on_a_routing_miss() {
    let registry = ToolRegistry::new();
    let slow = Arc::new(SlowStartProvider {
        failures: AtomicUsize::new(2),
        declare_calls: AtomicUsize::new(0),
    });
    registry.register_provider(slow.clone());
    registry.register_provider(StoreProvider::new("store", &["ok"]));

    // Build and retry both fail: not routable yet, the other provider unaffected.
    let early = registry.invoke(call("late_tool", 1), &private_chat()).await;
    assert_eq!(early.error_message, "tool not found: late_tool");
    assert_eq!(slow.declare_calls.load(Ordering::SeqCst), 2);
    assert!(
        registry
            .invoke(call("ok", 1), &private_chat())
            .await
            .success
    );
    assert_eq!(slow.declare_calls.load(Ordering::SeqCst), 2);

    let late = registry.invoke(call("late_tool", 2), &private_chat()).await;
    assert_eq!(late.content, "late");
    assert_eq!(slow.declare_calls.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn a_hung_provider_is_skipped_after_the_metadata_timeout() {
    let registry = ToolRegistry::with_metadata_timeout(Some(Duration::from_millis(50)));
    registry.register_provider(Arc::new(HangingProvider));
    registry.register_provider(StoreProvider::new("store", &["ok"]));

    let ctx = ToolAvailabilityContext::default();
    assert_eq!(names(&registry.list_tools(&ctx).await), ["ok"]);
    let result = registry.invoke(call("ok", 1), &private_chat()).await;
    assert_eq!(result.content, "ok by store n=1");
}

#[tokio::test]
async fn the_registry_version_moves_with_providers_and_their_versions() {
    let registry = ToolRegistry::new();
    let start = registry.tool_set_version().current();

    let store = StoreProvider::new("store", &["a"]);
    registry.register_provider(store.clone());
    let registered = registry.tool_set_version().current();
    assert!(registered > start);

    // Folded in on demand, without any task.
    store.version.bump();
    let bumped = registry.tool_set_version().current();
    assert!(bumped > registered);
    assert_eq!(registry.tool_set_version().current(), bumped);

    // Pushed to subscribers by the forwarder.
    let mut changes = registry.subscribe_changes();
    changes.borrow_and_update();
    store.version.bump();
    tokio::time::timeout(Duration::from_secs(5), changes.changed())
        .await
        .expect("a provider bump reaches subscribers")
        .expect("registry alive");
    assert!(*changes.borrow_and_update() > bumped);

    registry.unregister_provider("store");
    tokio::time::timeout(Duration::from_secs(5), changes.changed())
        .await
        .expect("unregistering reaches subscribers")
        .expect("registry alive");

    drop(registry);
    tokio::time::timeout(Duration::from_secs(5), changes.changed())
        .await
        .expect("dropping the registry ends the subscription")
        .expect_err("no sender left");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hundreds_of_concurrent_invocations_route_correctly_during_churn() {
    let registry = Arc::new(ToolRegistry::new());
    let stores: Vec<_> = (0..10)
        .map(|p| {
            let tools: Vec<String> = (0..20).map(|t| format!("p{p}_t{t}")).collect();
            let tools: Vec<&str> = tools.iter().map(String::as_str).collect();
            StoreProvider::new(&format!("p{p}"), &tools)
        })
        .collect();
    for store in &stores {
        registry.register_provider(store.clone());
    }

    let churn = {
        let registry = Arc::clone(&registry);
        let bumped = Arc::clone(&stores[0]);
        tokio::spawn(async move {
            for round in 0..50 {
                registry.register_provider(StoreProvider::new("churn", &["p0_t0"]));
                bumped.version.bump();
                tokio::task::yield_now().await;
                registry.unregister_provider("churn");
                if round % 10 == 0 {
                    tokio::task::yield_now().await;
                }
            }
        })
    };
    let calls: Vec<_> = (0..600)
        .map(|n| {
            let registry = Arc::clone(&registry);
            tokio::spawn(async move {
                let tool = format!("p{}_t{}", n % 10, n % 20);
                let result = registry.invoke(call(&tool, n), &private_chat()).await;
                (tool, n, result)
            })
        })
        .collect();
    for task in calls {
        let (tool, n, result) = task.await.expect("invoke task");
        assert!(result.success, "{result:?}");
        assert_eq!(result.tool_name, tool);
        let provider = &tool[..tool.find('_').unwrap()];
        assert_eq!(result.content, format!("{tool} by {provider} n={n}"));
    }
    churn.await.expect("churn task");
    let served: usize = stores
        .iter()
        .map(|store| store.invocations.load(Ordering::Relaxed))
        .sum();
    assert_eq!(served, 600);
}
