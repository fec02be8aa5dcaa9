//! Chat messages plugins hand the host (`host.route_message`): the plugin runtime checks who
//! sends them and hands them up to whatever takes them in, the message flow, through this
//! trait (the flow sits above the runtime and installs itself).

use std::sync::{OnceLock, Weak};

use futures::future::BoxFuture;
use maitool_protocol::JsonObject;
use serde_json::Value;

/// Takes in a chat message a plugin received from outside.
pub trait InboundMessages: Send + Sync + 'static {
    /// Takes `message` (a MaiBot message dict) from `plugin_id`; what happened to it as a
    /// JSON map, or why it was refused.
    fn take(
        &self,
        plugin_id: String,
        message: JsonObject,
    ) -> BoxFuture<'static, Result<Value, String>>;
}

/// Where the runtime hands inbound messages, once something took the place.
#[derive(Default)]
pub(crate) struct InboundSlot(OnceLock<Weak<dyn InboundMessages>>);

impl InboundSlot {
    pub(crate) fn set(&self, taker: Weak<dyn InboundMessages>) {
        let _ = self.0.set(taker);
    }

    pub(crate) fn get(&self) -> Option<std::sync::Arc<dyn InboundMessages>> {
        self.0.get().and_then(Weak::upgrade)
    }
}
