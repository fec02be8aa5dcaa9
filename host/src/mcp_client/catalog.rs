//! The exposed tool set: every connected server's tools in config order, named and
//! mapped, with cross-server collisions resolved first-wins.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::Arc;

use maitool_protocol::ToolSpec;
use rmcp::model::Tool;

use super::naming::exposed_name;
use super::spec::tool_to_spec;

/// Where an exposed tool goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// Index of the server in the effective server list.
    pub server: usize,
    /// The tool's name on that server.
    pub mcp_name: String,
}

/// One server's contribution, in config order.
#[derive(Debug, Clone)]
pub struct ServerTools<'a> {
    /// The configured server name.
    pub server_name: &'a str,
    /// Its `tool_prefix`.
    pub tool_prefix: &'a str,
    /// Its current tools (empty while it is down).
    pub tools: &'a [Tool],
}

/// A snapshot of the exposed tools; replaced as a whole when any server's tools change.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Catalog {
    specs: Arc<Vec<Arc<ToolSpec>>>,
    routes: HashMap<String, Route>,
    /// Exposed name to its position in `specs`.
    positions: HashMap<String, usize>,
    exposed_per_server: Vec<usize>,
}

impl Catalog {
    /// Builds the catalog. A name already taken by an earlier server (or earlier in the
    /// same server's list) is skipped with a warning naming both servers.
    pub fn build(servers: &[ServerTools<'_>]) -> Self {
        let mut specs = Vec::new();
        let mut routes: HashMap<String, Route> = HashMap::new();
        let mut positions = HashMap::new();
        let mut exposed_per_server = vec![0; servers.len()];
        for (index, server) in servers.iter().enumerate() {
            for tool in server.tools {
                let name = exposed_name(server.tool_prefix, &tool.name);
                match routes.entry(name) {
                    Entry::Occupied(taken) => {
                        let owner = servers[taken.get().server].server_name;
                        tracing::warn!(
                            tool = %taken.key(),
                            server = server.server_name,
                            kept_from = owner,
                            "MCP tool name collision: keeping the tool of the earlier server \
                             (set `tool_prefix` on one of them to expose both)"
                        );
                    }
                    Entry::Vacant(slot) => {
                        positions.insert(slot.key().clone(), specs.len());
                        specs.push(Arc::new(tool_to_spec(server.server_name, slot.key(), tool)));
                        slot.insert(Route {
                            server: index,
                            mcp_name: tool.name.to_string(),
                        });
                        exposed_per_server[index] += 1;
                    }
                }
            }
        }
        Self {
            specs: Arc::new(specs),
            routes,
            positions,
            exposed_per_server,
        }
    }

    /// The exposed specs, in config order.
    pub fn specs(&self) -> Arc<Vec<Arc<ToolSpec>>> {
        self.specs.clone()
    }

    /// The spec of an exposed name.
    pub fn spec(&self, name: &str) -> Option<&Arc<ToolSpec>> {
        self.positions
            .get(name)
            .map(|&position| &self.specs[position])
    }

    /// The route of an exposed name.
    pub fn route(&self, name: &str) -> Option<&Route> {
        self.routes.get(name)
    }

    /// How many tools of server `index` are exposed.
    pub fn exposed_count(&self, index: usize) -> usize {
        self.exposed_per_server.get(index).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests;
