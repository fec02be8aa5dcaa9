//! Routing: which provider runs an invocation.
//!
//! MaiBot lists every provider on each call (quirk Q2). Here a routing index maps each tool
//! name to its candidate providers in registration order, built from `declared_tool_names()`.
//! An invocation asks only those candidates `is_available(name, ctx)`, and the first that says
//! yes runs it: the same provider `list_tools` shows under that name. A later provider's tool
//! of the same name is also reachable under its alias (`aliases.rs`), which routes to that
//! provider alone.
//!
//! The index is rebuilt only when the set of providers changed or a provider's
//! `tool_set_version()` moved; checking that costs one version read per provider, whatever the
//! number of tools. A rebuild asks again only the providers whose version moved (or that are
//! new); the others' declared names are reused.

use std::sync::Arc;
use std::time::Instant;

use foldhash::{HashMap, HashMapExt};
use futures::future::join_all;
use maitool_protocol::{ToolExecutionContext, ToolExecutionResult, ToolInvocation, ToolSpec};

use super::ToolRegistry;
use super::aliases::Aliases;
use super::guard::{Failure, guarded, guarded_now, unbounded};
use super::slots::{ProviderSlot, Snapshot};
use crate::metrics::CallOutcome;

/// The declared tool names of one registration, as of one version value.
#[derive(Clone)]
struct Declared {
    slot_id: u64,
    /// The provider version read *before* asking for the names, so that a bump racing with the
    /// declaration triggers another rebuild instead of being lost.
    version: Option<u64>,
    /// `None` when the declaration failed; the provider is asked again on a routing miss.
    names: Option<Arc<[String]>>,
}

/// Tool name to candidate providers, for one snapshot of the providers.
pub(super) struct RoutingIndex {
    snapshot: Arc<Snapshot>,
    /// Aligned with `snapshot.slots`.
    declared: Vec<Declared>,
    /// Indices into `snapshot.slots`, in registration order.
    routes: HashMap<String, Vec<usize>>,
    /// The names later providers' tools of a taken name are reachable under.
    pub(super) aliases: Aliases,
}

impl RoutingIndex {
    /// Whether the index still describes `snapshot` and every provider's version.
    fn is_current(&self, snapshot: &Arc<Snapshot>) -> bool {
        Arc::ptr_eq(&self.snapshot, snapshot)
            && self
                .snapshot
                .slots
                .iter()
                .zip(&self.declared)
                .all(|(slot, declared)| slot.current_version() == declared.version)
    }

    fn has_failures(&self) -> bool {
        self.declared
            .iter()
            .any(|declared| declared.names.is_none())
    }

    /// The providers that may run a call to `name`, in order, each with the tool's name
    /// there: those declaring it, or the one an alias stands for.
    fn candidates<'a>(
        &'a self,
        name: &'a str,
    ) -> impl Iterator<Item = (&'a Arc<ProviderSlot>, &'a str)> + use<'a> {
        let declared = self
            .routes
            .get(name)
            .into_iter()
            .flatten()
            .map(move |&position| (&self.snapshot.slots[position], name));
        let aliased = self
            .aliases
            .route(name)
            .filter(|_| !self.routes.contains_key(name))
            .map(|route| (&self.snapshot.slots[route.position], route.name.as_str()));
        declared.chain(aliased)
    }

    /// Whether `name` is the name of a tool some provider declares.
    pub(super) fn is_declared(&self, name: &str) -> bool {
        self.routes.contains_key(name)
    }

    fn previous_declaration(&self, slot: &ProviderSlot) -> Option<&Declared> {
        self.declared
            .iter()
            .find(|declared| declared.slot_id == slot.id)
    }
}

impl ToolRegistry {
    /// Runs one tool on the first provider, in registration order, that has it available in
    /// the caller's context.
    ///
    /// Arguments that break the tool's `parameters_schema` are refused before dispatch:
    /// `invalid arguments for tool NAME: at /FIELD: PROBLEM`.
    ///
    /// Never fails: an unknown tool gives a failed result `tool not found: NAME`, a tool its
    /// provider offers to no one, or a name a provider knows as something else than a tool,
    /// the provider's [`refusal`](crate::ToolProvider::refusal) (`tool NAME is hidden: ...`,
    /// `NAME is not a tool: it is a command of plugin ...`, a hook handler, an API); a provider
    /// error gives `tool NAME failed: CAUSE`; a provider panic gives
    /// `tool NAME failed: provider PROVIDER panicked: MESSAGE`, and the registry keeps serving.
    /// A result whose `tool_name` the provider left empty gets the invoked name.
    pub async fn invoke(
        &self,
        mut invocation: ToolInvocation,
        ctx: &ToolExecutionContext,
    ) -> ToolExecutionResult {
        let started = Instant::now();
        let name = invocation.tool_name.clone();
        let mut index = self.routing_index(false).await;
        if index.candidates(&name).next().is_none() && index.has_failures() {
            // The tool may belong to a provider whose declaration failed: ask it again, on
            // misses only, so a broken provider never slows down routing of working ones.
            index = self.routing_index(true).await;
        }

        // Derived only for a provider that cannot answer at once: it copies five strings.
        let mut availability = None;
        let limit = self.inner.metadata_timeout;
        let mut unanswered = None;
        for (slot, own_name) in index.candidates(&name) {
            let available = match guarded_now(|| slot.provider.available_tool_now(own_name, ctx)) {
                Some(answer) => answer,
                None => {
                    let availability = &*availability.get_or_insert_with(|| ctx.availability());
                    let check =
                        async { slot.provider.available_tool(own_name, availability).await };
                    guarded(check, limit).await
                }
            };
            match available {
                Ok(Some(spec)) => {
                    let result = match slot.arguments.check(&spec, &mut invocation.arguments) {
                        Ok(()) => {
                            let aliased = own_name != name;
                            if aliased {
                                // The provider knows the tool by its own name (MaiBot passes
                                // `registry_original_name` the same way).
                                invocation.tool_name = own_name.to_owned();
                            }
                            let mut result =
                                invoke_on(slot, Arc::clone(&spec), invocation, ctx, &name).await;
                            if aliased {
                                result.tool_name.clone_from(&name);
                            }
                            slot.outputs.check(&spec, result)
                        }
                        Err(violations) => {
                            tracing::debug!(tool = %name, provider = %slot.name, %violations, "refused a call whose arguments break the tool's schema");
                            ToolExecutionResult::failure(
                                &name,
                                format!("invalid arguments for tool {name}: {violations}"),
                            )
                            .with_metadata("error_kind", "invalid_arguments")
                        }
                    };
                    // Keyed by the routed name, never the provider's `tool_name`, so the table
                    // stays bounded by the declared tools.
                    let outcome = CallOutcome::of(&result);
                    self.inner
                        .metrics
                        .record(&slot.name, &name, outcome, started.elapsed());
                    return result;
                }
                Ok(None) => {}
                Err(failure) => {
                    tracing::warn!(tool = %name, provider = %slot.name, %failure, "provider could not tell whether a tool is available");
                    unanswered.get_or_insert_with(|| {
                        format!(
                            "provider {} could not check availability: {failure}",
                            slot.name
                        )
                    });
                }
            }
        }
        self.inner.metrics.record_unrouted();
        match unanswered {
            // A provider that could not answer may well have the tool: say why, rather than
            // claiming the tool does not exist.
            Some(cause) => {
                ToolExecutionResult::failure(&name, format!("tool {name} failed: {cause}"))
            }
            // A tool that exists but is offered to no one (a hidden plugin tool) says so, and
            // so does a name that is no tool at all (a plugin's command, hook handler or API): the declaring
            // providers are asked first, then every provider.
            None => match index
                .candidates(&name)
                .find_map(|(slot, own_name)| slot.provider.refusal(own_name, ctx))
                .or_else(|| {
                    index
                        .snapshot
                        .slots
                        .iter()
                        .find_map(|slot| slot.provider.refusal(&name, ctx))
                }) {
                Some(mut refusal) => {
                    refusal.success = false;
                    refusal.tool_name.clone_from(&name);
                    refusal
                }
                None => {
                    tracing::debug!(tool = %name, "invoked tool not found");
                    ToolExecutionResult::failure(&name, format!("tool not found: {name}"))
                }
            },
        }
    }

    /// The routing index for the current providers, rebuilt if stale. With `retry_failed`,
    /// providers whose declaration failed are asked again even if nothing else changed.
    pub(super) async fn routing_index(&self, retry_failed: bool) -> Arc<RoutingIndex> {
        let fresh = |index: &RoutingIndex, snapshot: &Arc<Snapshot>| {
            index.is_current(snapshot) && !(retry_failed && index.has_failures())
        };
        let snapshot = self.inner.snapshot();
        if let Some(index) = self.inner.index.read().clone()
            && fresh(&index, &snapshot)
        {
            return index;
        }

        // One rebuild at a time; whoever waited re-checks, since the rebuild it waited for
        // is usually the one it needed.
        let _rebuilding = self.inner.rebuild.lock().await;
        let snapshot = self.inner.snapshot();
        let previous = self.inner.index.read().clone();
        if let Some(index) = &previous
            && fresh(index, &snapshot)
        {
            return Arc::clone(index);
        }
        self.inner.sync_versions();
        let index = Arc::new(
            build(
                snapshot,
                previous.as_deref(),
                retry_failed,
                self.inner.metadata_timeout,
            )
            .await,
        );
        *self.inner.index.write() = Some(Arc::clone(&index));
        index
    }
}

/// Runs the invocation on the chosen provider and normalises its outcome.
async fn invoke_on(
    slot: &ProviderSlot,
    spec: Arc<ToolSpec>,
    invocation: ToolInvocation,
    ctx: &ToolExecutionContext,
    name: &str,
) -> ToolExecutionResult {
    // No time limit: a tool may legitimately run long; providers bound their own calls.
    let call = async { slot.provider.invoke_available(spec, invocation, ctx).await };
    match unbounded(call).await {
        Ok(mut result) => {
            if result.tool_name.is_empty() {
                result.tool_name = name.to_owned();
            }
            if !result.success {
                tracing::debug!(tool = %result.tool_name, provider = %slot.name, error = %result.error_message, "tool reported a failure");
            }
            result
        }
        Err(Failure::Panicked(message)) => {
            tracing::error!(tool = %name, provider = %slot.name, panic = %message, "provider panicked while running a tool");
            let error = format!(
                "tool {name} failed: provider {} panicked: {message}",
                slot.name
            );
            ToolExecutionResult::failure(name, error)
        }
        Err(failure) => {
            tracing::warn!(tool = %name, provider = %slot.name, %failure, "provider failed to run a tool");
            let error = format!("tool {name} failed: {failure}");
            ToolExecutionResult::failure(name, error)
        }
    }
}

/// Builds the index for `snapshot`, reusing `previous` declarations whose version is unchanged.
async fn build(
    snapshot: Arc<Snapshot>,
    previous: Option<&RoutingIndex>,
    retry_failed: bool,
    limit: Option<std::time::Duration>,
) -> RoutingIndex {
    let declarations = snapshot.slots.iter().map(|slot| async move {
        let version = slot.current_version();
        let reusable = previous
            .and_then(|index| index.previous_declaration(slot))
            .filter(|declared| declared.version == version)
            .filter(|declared| declared.names.is_some() || !retry_failed);
        if let Some(declared) = reusable {
            return declared.clone();
        }
        let names = match guarded(async { slot.provider.declared_tool_names().await }, limit).await {
            Ok(names) => Some(Arc::from(names)),
            Err(failure) => {
                tracing::warn!(provider = %slot.name, %failure, "provider failed to declare its tools; its tools are not routable until it answers");
                None
            }
        };
        Declared {
            slot_id: slot.id,
            version,
            names,
        }
    });
    let declared = join_all(declarations).await;

    let total = declared
        .iter()
        .filter_map(|declared| declared.names.as_ref())
        .map(|names| names.len())
        .sum();
    let mut routes: HashMap<String, Vec<usize>> = HashMap::with_capacity(total);
    for (position, names) in declared
        .iter()
        .enumerate()
        .filter_map(|(position, declared)| Some((position, declared.names.as_ref()?)))
    {
        for name in names.iter() {
            let candidates = routes.entry(name.clone()).or_default();
            if candidates.last() != Some(&position) {
                candidates.push(position);
            }
        }
    }
    let aliases = Aliases::build(
        &snapshot,
        declared.iter().map(|declared| declared.names.as_deref()),
        |name| {
            routes
                .get(name)
                .and_then(|positions| positions.first().copied())
        },
        |name| routes.contains_key(name),
    );
    tracing::debug!(
        providers = snapshot.slots.len(),
        tools = routes.len(),
        "rebuilt the tool routing index"
    );
    RoutingIndex {
        snapshot,
        declared,
        routes,
        aliases,
    }
}
