//! The unified tool list: every provider's tools in registration order, disabled specs
//! skipped; a name listed twice stays with the first provider and the later tool is listed
//! under its alias (`aliases.rs`); a session's list is then shaped by the planner's request
//! hook.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use futures::future::join_all;
use maitool_protocol::ToolDefinition;
use maitool_protocol::{ToolAvailabilityContext, ToolSpec};

use super::ToolRegistry;
use super::aliases::alias_on_the_fly;
use super::guard::{Failure, guarded};
use super::routing::RoutingIndex;
use super::slots::ProviderSlot;

/// One provider's answer to `list_tools`.
struct Listing {
    slot: Arc<ProviderSlot>,
    specs: Vec<Arc<ToolSpec>>,
}

impl ToolRegistry {
    /// The tools offered in `ctx`: every provider's enabled tools in registration order
    /// ([`list_tools_unhooked`](Self::list_tools_unhooked)), then, for a context with a
    /// session, shaped by the planner's request hook when a plugin subscribes to it
    /// ([`crate::hook::offer`]): its handlers may leave tools out, reorder them and rewrite
    /// their descriptions.
    pub async fn list_tools(&self, ctx: &ToolAvailabilityContext) -> Vec<Arc<ToolSpec>> {
        let tools = self.list_tools_unhooked(ctx).await;
        let hooks = self.inner.hooks.read().clone();
        match hooks {
            Some(hooks) => crate::hook::offer::shape(hooks.as_ref(), ctx, tools).await,
            None => tools,
        }
    }

    /// The tools exposed in `ctx` before any hook: every provider's enabled tools in
    /// registration order.
    ///
    /// A name listed by two providers stays with the first; the later tool is listed under
    /// its alias, `<provider_type>_<source>_<name>` (MaiBot 1.3's rule, see
    /// [`tool_name`](crate::tool_name)), with its own name in the spec's
    /// `registry_original_name` metadata, and an info record says so once per clash. A
    /// provider whose listing fails, panics or times out is logged and skipped; the others
    /// are still listed. Providers are listed concurrently; specs are shared with the
    /// providers, so a listing copies pointers, never schemas.
    pub async fn list_tools_unhooked(&self, ctx: &ToolAvailabilityContext) -> Vec<Arc<ToolSpec>> {
        let listings = self.list_each(ctx).await;
        let index = self.routing_index(false).await;
        let (tools, renames) = merge(listings, &index);
        for rename in renames {
            // Listing runs for every model request: say it once per clash, not per listing.
            if self.inner.warned_duplicates.lock().insert(rename.clone()) {
                let Rename {
                    tool,
                    kept,
                    renamed,
                    alias,
                } = rename;
                tracing::info!(
                    tool = %tool,
                    kept_provider = %kept,
                    renamed_provider = %renamed,
                    alias = %alias,
                    "duplicate tool name {tool}: provider {kept} keeps it, provider {renamed}'s tool is listed as {alias}",
                );
            }
        }
        tools
    }

    /// The spec that [`list_tools`](Self::list_tools) would return for `name`, if any (an
    /// alias gives the renamed spec).
    ///
    /// Like `list_tools` this asks every provider, so it also sees tools a provider lists but
    /// has not declared yet; routing ([`invoke`](Self::invoke)) goes through the index instead.
    pub async fn get_tool_spec(
        &self,
        name: &str,
        ctx: &ToolAvailabilityContext,
    ) -> Option<Arc<ToolSpec>> {
        self.list_tools(ctx)
            .await
            .into_iter()
            .find(|spec| spec.name == name)
    }

    /// Whether [`get_tool_spec`](Self::get_tool_spec) finds `name`.
    pub async fn has_tool(&self, name: &str, ctx: &ToolAvailabilityContext) -> bool {
        self.get_tool_spec(name, ctx).await.is_some()
    }

    /// The model-facing definitions of [`list_tools`](Self::list_tools), in the same order:
    /// what [`ToolSpec::to_llm_definition`] gives.
    pub async fn get_llm_definitions(&self, ctx: &ToolAvailabilityContext) -> Vec<ToolDefinition> {
        self.list_tools(ctx)
            .await
            .iter()
            .map(|spec| spec.to_llm_definition())
            .collect()
    }

    /// Every provider's listing, in registration order, without the failed ones.
    async fn list_each(&self, ctx: &ToolAvailabilityContext) -> Vec<Listing> {
        let snapshot = self.inner.snapshot();
        let limit = self.inner.metadata_timeout;
        let listings = snapshot.slots.iter().map(|slot| async move {
            match guarded(async { slot.provider.list_tools(ctx).await }, limit).await {
                Ok(specs) => Some(Listing {
                    slot: Arc::clone(slot),
                    specs,
                }),
                Err(failure @ Failure::Panicked(_)) => {
                    tracing::error!(provider = %slot.name, %failure, "provider failed to list tools; skipping it");
                    None
                }
                Err(failure) => {
                    tracing::warn!(provider = %slot.name, %failure, "provider failed to list tools; skipping it");
                    None
                }
            }
        });
        join_all(listings).await.into_iter().flatten().collect()
    }
}

/// A tool name listed by two providers: the first keeps it, the later one is listed under an
/// alias.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct Rename {
    tool: String,
    kept: String,
    renamed: String,
    alias: String,
}

/// Flattens the listings, keeping enabled specs; a name seen before is listed under the later
/// tool's alias. Also returns the renames.
fn merge(listings: Vec<Listing>, index: &RoutingIndex) -> (Vec<Arc<ToolSpec>>, Vec<Rename>) {
    let total: usize = listings.iter().map(|listing| listing.specs.len()).sum();
    let mut renames = Vec::new();
    // Names borrowed from the listings: no name is cloned unless two providers clash.
    let mut owners: HashMap<&str, &str> = HashMap::with_capacity(total);
    let mut aliases: HashSet<String> = HashSet::new();
    let mut tools = Vec::with_capacity(total);
    for listing in &listings {
        let slot = &listing.slot;
        for spec in &listing.specs {
            if !spec.enabled {
                continue;
            }
            let kept = match owners.entry(spec.name.as_str()) {
                Entry::Vacant(vacant) if !aliases.contains(spec.name.as_str()) => {
                    vacant.insert(&slot.name);
                    tools.push(Arc::clone(spec));
                    continue;
                }
                Entry::Vacant(_) => "an alias".to_owned(),
                Entry::Occupied(kept) => (*kept.get()).to_owned(),
            };
            let taken = |name: &str| {
                owners.contains_key(name) || aliases.contains(name) || index.is_declared(name)
            };
            let alias = match index.aliases.alias_of(slot, &spec.name) {
                Some(alias) if !owners.contains_key(alias) && !aliases.contains(alias) => {
                    Some(alias.to_owned())
                }
                _ => alias_on_the_fly(slot, spec, taken),
            };
            let Some(alias) = alias else {
                tracing::warn!(tool = %spec.name, provider = %slot.name, "no free name for a duplicate tool; it is not listed");
                continue;
            };
            tools.push(index.aliases.renamed_spec(slot, spec, &alias));
            renames.push(Rename {
                tool: spec.name.clone(),
                kept,
                renamed: slot.name.to_string(),
                alias: alias.clone(),
            });
            aliases.insert(alias);
        }
    }
    (tools, renames)
}
