//! The unified tool list: every provider's tools in registration order, disabled specs
//! skipped, the first registration winning a duplicate name.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::Arc;

use futures::future::join_all;
use maitool_protocol::ToolDefinition;
use maitool_protocol::{ToolAvailabilityContext, ToolSpec};

use super::ToolRegistry;
use super::guard::{Failure, guarded};
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
    /// On a duplicate name the first registered provider's tool wins and a warning names the
    /// tool and both providers. A provider whose listing fails, panics or times out is logged
    /// and skipped; the others are still listed. Providers are listed concurrently; specs are
    /// shared with the providers, so a listing copies pointers, never schemas.
    pub async fn list_tools_unhooked(&self, ctx: &ToolAvailabilityContext) -> Vec<Arc<ToolSpec>> {
        let (tools, duplicates) = merge(self.list_each(ctx).await);
        for duplicate in duplicates {
            // Listing runs for every model request: warn once per clash, not per listing.
            if self
                .inner
                .warned_duplicates
                .lock()
                .insert(duplicate.clone())
            {
                let Duplicate {
                    tool,
                    kept,
                    skipped,
                } = duplicate;
                tracing::warn!(
                    tool = %tool,
                    kept_provider = %kept,
                    skipped_provider = %skipped,
                    "duplicate tool name {tool}: keeping the one of provider {kept}, skipping the one of provider {skipped}",
                );
            }
        }
        tools
    }

    /// The spec that [`list_tools`](Self::list_tools) would return for `name`, if any.
    ///
    /// Like `list_tools` this asks every provider, so it also sees tools a provider lists but
    /// has not declared yet; routing ([`invoke`](Self::invoke)) goes through the index instead.
    pub async fn get_tool_spec(
        &self,
        name: &str,
        ctx: &ToolAvailabilityContext,
    ) -> Option<Arc<ToolSpec>> {
        self.list_each(ctx)
            .await
            .into_iter()
            .flat_map(|listing| listing.specs)
            .find(|spec| spec.enabled && spec.name == name)
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

/// A tool name listed by two providers: the first registered keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct Duplicate {
    tool: String,
    kept: String,
    skipped: String,
}

/// Flattens the listings, keeping enabled specs whose name was not seen before; also returns
/// the clashes.
fn merge(listings: Vec<Listing>) -> (Vec<Arc<ToolSpec>>, Vec<Duplicate>) {
    let mut duplicates = Vec::new();
    let total: usize = listings.iter().map(|listing| listing.specs.len()).sum();
    // Decide first, with names borrowed from the listings, then move the kept specs out: no
    // name is cloned.
    let keep: Vec<bool> = {
        let mut owners: HashMap<&str, &str> = HashMap::with_capacity(total);
        let mut keep = Vec::with_capacity(total);
        for listing in &listings {
            for spec in &listing.specs {
                if !spec.enabled {
                    keep.push(false);
                    continue;
                }
                match owners.entry(spec.name.as_str()) {
                    Entry::Vacant(vacant) => {
                        vacant.insert(&listing.slot.name);
                        keep.push(true);
                    }
                    Entry::Occupied(kept) => {
                        duplicates.push(Duplicate {
                            tool: spec.name.clone(),
                            kept: (*kept.get()).to_owned(),
                            skipped: listing.slot.name.to_string(),
                        });
                        keep.push(false);
                    }
                }
            }
        }
        keep
    };
    let kept = keep.iter().filter(|keep| **keep).count();
    let mut tools = Vec::with_capacity(kept);
    tools.extend(
        listings
            .into_iter()
            .flat_map(|listing| listing.specs)
            .zip(keep)
            .filter_map(|(spec, keep)| keep.then_some(spec)),
    );
    (tools, duplicates)
}
