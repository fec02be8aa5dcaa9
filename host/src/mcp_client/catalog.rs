//! The exposed tool set: every connected server's tools in config order, named and
//! mapped. A name an earlier server already exposes is kept under MaiBot 1.3's source prefix,
//! `mcp_<server>_<name>` (`tool_name.rs`), as MaiBot's registry does for its MCP servers.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use maitool_protocol::{ProviderType, ToolSpec};
use rmcp::model::Tool;

use super::naming::exposed_name;
use super::spec::tool_to_spec;
use crate::tool_name::{self, Origin};

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
    /// Builds the catalog. A name already taken by an earlier server is exposed as
    /// `mcp_<server>_<name>` (logged); a server that lists one name twice keeps the first.
    pub fn build(servers: &[ServerTools<'_>]) -> Self {
        let mut specs = Vec::new();
        let mut routes: HashMap<String, Route> = HashMap::new();
        let mut positions = HashMap::new();
        let mut exposed_per_server = vec![0; servers.len()];
        // Every name some server exposes under its own name: an alias must not take one.
        let declared: HashSet<String> = servers
            .iter()
            .flat_map(|server| {
                server
                    .tools
                    .iter()
                    .map(|tool| exposed_name(server.tool_prefix, &tool.name))
            })
            .collect();
        for (index, server) in servers.iter().enumerate() {
            for tool in server.tools {
                let own = exposed_name(server.tool_prefix, &tool.name);
                let name = match routes.get(&own) {
                    None => own.clone(),
                    Some(taken) if taken.server == index => {
                        tracing::warn!(
                            tool = %own,
                            server = server.server_name,
                            "the MCP server lists a tool name twice; keeping the first"
                        );
                        continue;
                    }
                    Some(taken) => {
                        let origin = Origin {
                            kind: ProviderType::Mcp.as_str(),
                            provider: super::spec::PROVIDER_NAME,
                            source: server.server_name,
                        };
                        let free =
                            |name: &str| declared.contains(name) || routes.contains_key(name);
                        let Some(alias) = tool_name::renamed(origin, &own, free) else {
                            tracing::warn!(tool = %own, server = server.server_name, "no free name for a duplicate MCP tool; it is not exposed");
                            continue;
                        };
                        tracing::info!(
                            tool = %own,
                            server = server.server_name,
                            kept_from = servers[taken.server].server_name,
                            alias = %alias,
                            "MCP tool name collision: the earlier server keeps the name, this \
                             one is exposed as {alias}"
                        );
                        alias
                    }
                };
                let mut spec = tool_to_spec(server.server_name, &name, tool);
                if name != own {
                    spec.metadata
                        .insert(tool_name::ORIGINAL_NAME_KEY.to_owned(), own.into());
                }
                positions.insert(name.clone(), specs.len());
                specs.push(Arc::new(spec));
                routes.insert(
                    name,
                    Route {
                        server: index,
                        mcp_name: tool.name.to_string(),
                    },
                );
                exposed_per_server[index] += 1;
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
