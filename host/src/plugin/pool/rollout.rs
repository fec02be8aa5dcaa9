//! A member's registration during a rollout: members of one pool may declare the plugin
//! differently (old and new versions side by side). The registry keeps the newest version a
//! member registered; a member declaring an older one registers nothing, and gets calls only
//! for the components it declares exactly as registered (`pool_members.rs` routes so).

use std::hash::{Hash, Hasher};

use maitool_protocol::rpc::{IncomingMessage, Payload, RpcError};
use maitool_protocol::wire::methods::{
    ComponentDeclaration, RegisterComponentsPayload, RegisterComponentsResponse,
};
use parking_lot::Mutex;

use super::handler::PoolMemberHandler;
use crate::plugin::pool_members::Declarations;

/// The plugin version whose declarations the registry holds, per pool.
#[derive(Debug, Default)]
pub(crate) struct RegisteredVersion(Mutex<Option<String>>);

impl RegisteredVersion {
    /// The version the registry holds, if a member registered one.
    pub(crate) fn current(&self) -> Option<String> {
        self.0.lock().clone()
    }
}

impl PoolMemberHandler {
    /// Registers the pool's plugin as this member declares it, or, for an older version
    /// than registered, records the member's declarations only.
    pub(super) fn register_member(
        &self,
        request: &IncomingMessage,
        payload: &RegisterComponentsPayload,
    ) -> Result<Payload, RpcError> {
        let declared = fingerprints(&payload.components);
        self.member
            .set_declared(declared.clone(), &payload.plugin_version);
        let mut registered = self.version.0.lock();
        let older = registered
            .as_deref()
            .is_some_and(|current| is_older(&payload.plugin_version, current));
        if older {
            let current = registered.clone().unwrap_or_default();
            drop(registered);
            tracing::info!(pool = %self.members.pool, member = %self.member.name, version = %payload.plugin_version, registered = %current, "pool member declares an older version of the plugin: it gets calls only for the components it declares as registered");
            return Payload::encode(&RegisterComponentsResponse {
                accepted: true,
                plugin_id: payload.plugin_id.clone(),
                registered_components: Vec::new(),
                reason: String::new(),
            });
        }
        let answer = self.inner.register(request)?;
        let accepted = answer
            .decode::<RegisterComponentsResponse>()
            .is_ok_and(|response| response.accepted);
        if accepted {
            *registered = Some(payload.plugin_version.clone());
            self.members.set_registered(declared);
        }
        Ok(answer)
    }
}

/// Each component's declaration by name, as a fingerprint of its whole encoding.
fn fingerprints(components: &[ComponentDeclaration]) -> Declarations {
    components
        .iter()
        .map(|declaration| {
            let encoded = rmp_serde::to_vec_named(declaration).unwrap_or_default();
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            encoded.hash(&mut hasher);
            (declaration.name.clone(), hasher.finish())
        })
        .collect()
}

/// Whether version `a` is older than `b`: dotted numbers compared as numbers, anything else
/// as text; equal versions are not older (the later registration wins).
fn is_older(a: &str, b: &str) -> bool {
    let parts = |v: &str| -> Vec<Result<u64, String>> {
        v.split(['.', '-', '+'])
            .map(|part| part.parse::<u64>().map_err(|_| part.to_owned()))
            .collect()
    };
    let (a, b) = (parts(a), parts(b));
    for (x, y) in a.iter().zip(b.iter()) {
        let order = match (x, y) {
            (Ok(x), Ok(y)) => x.cmp(y),
            (Ok(_), Err(_)) => std::cmp::Ordering::Greater,
            (Err(_), Ok(_)) => std::cmp::Ordering::Less,
            (Err(x), Err(y)) => x.cmp(y),
        };
        if order != std::cmp::Ordering::Equal {
            return order == std::cmp::Ordering::Less;
        }
    }
    a.len() < b.len()
}

#[cfg(test)]
mod tests;
