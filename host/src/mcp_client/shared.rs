//! The state the provider and its server supervisors share: the configuration, one slot
//! per server, the shutdown signal and the published tool set. Supervisors publish into
//! it; the provider reads it.

use std::sync::Arc;

use parking_lot::RwLock;
use tokio_util::sync::CancellationToken;

use super::catalog::{Catalog, ServerTools};
use super::config::{McpClientConfig, McpConfig};
use super::slot::ServerSlot;
use crate::provider::ToolSetVersion;

/// State shared by the provider and the server supervisors.
#[derive(Debug)]
pub struct Shared {
    /// The configuration the provider started with.
    pub config: McpConfig,
    /// The client options, shared with every connection's handler.
    pub client: Arc<McpClientConfig>,
    /// One slot per effective server, in config order.
    pub slots: Vec<Arc<ServerSlot>>,
    /// Fired by `close`.
    pub shutdown: CancellationToken,
    catalog: RwLock<Arc<Catalog>>,
    version: ToolSetVersion,
}

impl Shared {
    /// The state of a provider that has published nothing yet.
    pub fn new(config: McpConfig, slots: Vec<Arc<ServerSlot>>) -> Self {
        Self {
            client: Arc::new(config.client.clone()),
            config,
            slots,
            shutdown: CancellationToken::new(),
            catalog: RwLock::new(Arc::new(Catalog::default())),
            version: ToolSetVersion::new(),
        }
    }

    /// Rebuilds the exposed tool set from every slot and bumps the tool-set version when it
    /// changed. Built under the write lock so concurrent publishers cannot reorder.
    pub fn publish(&self) {
        let mut current = self.catalog.write();
        let tools: Vec<_> = self.slots.iter().map(|slot| slot.tools()).collect();
        let servers: Vec<ServerTools<'_>> = self
            .slots
            .iter()
            .zip(&tools)
            .map(|(slot, tools)| ServerTools {
                server_name: &slot.config.name,
                tool_prefix: &slot.config.tool_prefix,
                tools,
            })
            .collect();
        let catalog = Catalog::build(&servers);
        if **current != catalog {
            *current = Arc::new(catalog);
            self.version.bump();
        }
    }

    /// The exposed tool set as last published.
    pub fn catalog(&self) -> Arc<Catalog> {
        self.catalog.read().clone()
    }

    /// Moves whenever a publish changes the exposed tool set.
    pub fn version(&self) -> &ToolSetVersion {
        &self.version
    }
}
