//! The order plugins are listed in, which also decides which of two plugins declaring the
//! same tool name keeps it: the order of the configuration, not of registration.
//!
//! Runners start together and register as they finish loading, so registration order changes
//! from one start to the next. Ranked by the configuration (a runner's position, then the
//! plugin id), a host lists the same tools in the same order after every restart, which keeps
//! a model's prompt cache warm and a clashing name with the same owner.

use foldhash::HashMap;

/// A plugin's place: lower ranks first, equal ranks by plugin id. [`UNRANKED`] plugins come
/// after every ranked one, in registration order.
pub(crate) type Rank = usize;

/// The rank of a plugin registered with no place in a configuration.
pub(crate) const UNRANKED: Rank = Rank::MAX;

/// Plugin ids in listing order.
#[derive(Debug, Default)]
pub(super) struct PluginOrder {
    ids: Vec<String>,
    ranks: HashMap<String, Rank>,
}

impl PluginOrder {
    /// Places `plugin_id` by `rank`; a plugin already placed keeps its place.
    pub(super) fn place(&mut self, plugin_id: &str, rank: Rank) {
        if self.ranks.contains_key(plugin_id) {
            return;
        }
        let at = if rank == UNRANKED {
            self.ids.len()
        } else {
            self.ids
                .iter()
                .position(|other| {
                    let other_rank = self.ranks[other];
                    other_rank == UNRANKED || (other_rank, other.as_str()) > (rank, plugin_id)
                })
                .unwrap_or(self.ids.len())
        };
        self.ids.insert(at, plugin_id.to_owned());
        self.ranks.insert(plugin_id.to_owned(), rank);
    }

    pub(super) fn iter(&self) -> std::slice::Iter<'_, String> {
        self.ids.iter()
    }
}

#[cfg(test)]
mod tests;
