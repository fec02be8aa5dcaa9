//! Tool names two providers declare: MaiBot 1.3 keeps both, the later one under a source
//! prefix (`tool_name.rs`), where maitool used to drop it.
//!
//! A name stays with the first provider, in registration order, that has the tool available
//! in the caller's context (listing and routing agree, as before). Every later provider that
//! declares the name also gets an alias, `<provider_type>_<source>_<name>`, built once per
//! routing index from the declarations, so it is the same in every context: a listing that
//! shows a tool after an earlier one of its name shows it under its alias, and a call to the
//! alias reaches that provider's tool in any context where it is available.

use std::collections::HashMap;
use std::sync::Arc;

use maitool_protocol::ToolSpec;
use parking_lot::Mutex;

use super::slots::{ProviderSlot, Snapshot};
use crate::tool_name::{self, ORIGINAL_NAME_KEY, Origin};

/// Where an alias goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct AliasRoute {
    /// The provider's position in the index's snapshot.
    pub(super) position: usize,
    /// The tool's name at that provider.
    pub(super) name: String,
}

/// The aliases of one routing index.
#[derive(Default)]
pub(super) struct Aliases {
    by_alias: HashMap<String, AliasRoute>,
    /// (slot id, the provider's name) -> alias.
    of_tool: HashMap<(u64, String), String>,
    /// Renamed specs handed out, keyed like `of_tool`, with the spec each was made from: a
    /// listing reuses the same `Arc` while the provider's spec is unchanged, so argument
    /// validators compiled for it stay cached.
    specs: Mutex<HashMap<(u64, String), RenamedSpec>>,
}

/// A renamed spec handed out: (the provider's spec it was made from, the renamed one).
type RenamedSpec = (Arc<ToolSpec>, Arc<ToolSpec>);

impl Aliases {
    /// The aliases of every later declaration of a name: `declared[p]` are the names the
    /// provider at position `p` of `snapshot` declares (`None`: its declaration failed), and
    /// `is_declared` says whether any provider declares a name.
    pub(super) fn build<'a>(
        snapshot: &Snapshot,
        declared: impl Iterator<Item = Option<&'a [String]>>,
        first_declarer: impl Fn(&str) -> Option<usize>,
        is_declared: impl Fn(&str) -> bool,
    ) -> Aliases {
        let mut aliases = Aliases::default();
        for (position, names) in declared.enumerate() {
            let Some(names) = names else { continue };
            let slot = &snapshot.slots[position];
            for name in names {
                if first_declarer(name).is_none_or(|first| first == position)
                    || aliases.of_tool.contains_key(&(slot.id, name.clone()))
                {
                    continue;
                }
                let kind = slot.provider.provider_type();
                let source = slot.provider.tool_source(name);
                let origin = Origin {
                    kind: kind.as_str(),
                    provider: &slot.name,
                    source: source.as_deref().unwrap_or(&slot.name),
                };
                let taken =
                    |alias: &str| is_declared(alias) || aliases.by_alias.contains_key(alias);
                let Some(alias) = tool_name::renamed(origin, name, taken) else {
                    tracing::warn!(tool = %name, provider = %slot.name, "no free name for a duplicate tool; it is reachable only where the earlier one is unavailable");
                    continue;
                };
                tracing::debug!(tool = %name, provider = %slot.name, %alias, "duplicate tool name: alias given");
                aliases.by_alias.insert(
                    alias.clone(),
                    AliasRoute {
                        position,
                        name: name.clone(),
                    },
                );
                aliases.of_tool.insert((slot.id, name.clone()), alias);
            }
        }
        aliases
    }

    /// Where `alias` goes, if it is one.
    pub(super) fn route(&self, alias: &str) -> Option<&AliasRoute> {
        self.by_alias.get(alias)
    }

    /// The alias of the tool `name` of the provider in `slot`, if it has one.
    pub(super) fn alias_of(&self, slot: &ProviderSlot, name: &str) -> Option<&str> {
        if self.of_tool.is_empty() {
            return None;
        }
        self.of_tool
            .get(&(slot.id, name.to_owned()))
            .map(String::as_str)
    }

    /// `spec` of `slot` under `alias`, with its declared name in
    /// [`ORIGINAL_NAME_KEY`].
    pub(super) fn renamed_spec(
        &self,
        slot: &ProviderSlot,
        spec: &Arc<ToolSpec>,
        alias: &str,
    ) -> Arc<ToolSpec> {
        let key = (slot.id, spec.name.clone());
        let mut specs = self.specs.lock();
        if let Some((original, renamed)) = specs.get(&key)
            && Arc::ptr_eq(original, spec)
            && renamed.name == alias
        {
            return Arc::clone(renamed);
        }
        let renamed = Arc::new(renamed(spec, alias));
        specs.insert(key, (Arc::clone(spec), Arc::clone(&renamed)));
        renamed
    }
}

/// A copy of `spec` named `alias`, keeping its declared name in [`ORIGINAL_NAME_KEY`].
pub(super) fn renamed(spec: &ToolSpec, alias: &str) -> ToolSpec {
    let mut renamed = spec.clone();
    renamed
        .metadata
        .entry(ORIGINAL_NAME_KEY)
        .or_insert_with(|| spec.name.clone().into());
    renamed.name = alias.to_owned();
    renamed
}

/// The alias a listed tool without a declared alias gets (a provider listed a tool it has not
/// declared yet): MaiBot's source, the spec's `server_name` or `plugin_id` metadata, else the
/// provider's name.
pub(super) fn alias_on_the_fly(
    slot: &ProviderSlot,
    spec: &ToolSpec,
    taken: impl Fn(&str) -> bool,
) -> Option<String> {
    let source = ["server_name", "plugin_id"]
        .iter()
        .find_map(|key| spec.metadata.get(*key).and_then(|v| v.as_str()))
        .filter(|source| !source.is_empty())
        .unwrap_or(&slot.name);
    let kind = slot.provider.provider_type();
    let origin = Origin {
        kind: kind.as_str(),
        provider: &slot.name,
        source,
    };
    tool_name::renamed(origin, &spec.name, taken)
}
