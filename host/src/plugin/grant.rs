//! Capability grants as the operator writes them: an exact name (`send.text`), a family
//! (`kv.*`) or `*`, checked when the configuration is read and matched on every `cap.call`;
//! and the grants a plugin gets from its own manifest when the operator opts in
//! (`grant_declared`).
//!
//! "Known" is [`Capability::ALL`] and [`CapabilityFamily::ALL`], the one list in
//! `maitool_protocol::capability`: a capability added there is grantable here at once.

mod suggest;

use maitool_protocol::capability::{Capability, CapabilityFamily};

pub use suggest::{Suggestion, suggest};

/// Families a plugin gets only by an exact or `family.*` grant: `*` does not include them,
/// because they act on other plugins.
pub const PRIVILEGED_FAMILIES: &[CapabilityFamily] = &[CapabilityFamily::Component];

/// Whether a grant list admits `capability`: an exact grant, a family grant (`kv.*`), or `*`,
/// which leaves out the [`PRIVILEGED_FAMILIES`]. A bare family name (`kv`) grants nothing;
/// [`check_grant`] refuses it in the configuration.
pub fn grants_admit(grants: &[String], capability: &str) -> bool {
    let family = capability.split('.').next().unwrap_or(capability);
    let privileged = PRIVILEGED_FAMILIES
        .iter()
        .any(|privileged| privileged.name() == family);
    grants.iter().any(|grant| {
        (grant == "*" && !privileged)
            || grant == capability
            || grant.strip_suffix(".*") == Some(family)
    })
}

/// A grant in the configuration that would grant something other than it seems to.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GrantError {
    /// Neither a capability this host serves, nor a family's `family.*`, nor `*`.
    #[error("{grant:?} is not a capability maitool serves; {suggestion}")]
    Unknown {
        /// The grant as written.
        grant: String,
        /// The known names nearest to it.
        suggestion: Suggestion,
    },
    /// A family's bare name (`kv`), which grants nothing.
    #[error("{grant:?} is a capability family, not a capability: grant \"{grant}.*\" for all of it, or name each ({})", members.join(", "))]
    BareFamily {
        /// The grant as written: the family's name.
        grant: String,
        /// The family's capabilities.
        members: Vec<&'static str>,
    },
}

/// Checks one grant of the configuration: an exact name this host serves (`send.text`), a
/// family's `family.*` (`kv.*`) or `*`. Anything else is refused with the known names nearest
/// to it, so that a grant never looks broader, or narrower, than what it does: a bare family
/// name (`kv`) grants nothing, and a dotted name nobody serves (`send.video`) would grant
/// nothing either.
pub fn check_grant(grant: &str) -> Result<(), GrantError> {
    if grant == "*" || grant.parse::<Capability>().is_ok() {
        return Ok(());
    }
    if let Some(family) = grant.strip_suffix(".*")
        && family.parse::<CapabilityFamily>().is_ok()
    {
        return Ok(());
    }
    if let Ok(family) = grant.parse::<CapabilityFamily>() {
        return Err(GrantError::BareFamily {
            grant: grant.to_owned(),
            members: members(family),
        });
    }
    Err(GrantError::Unknown {
        grant: grant.to_owned(),
        suggestion: suggest(grant),
    })
}

/// The capabilities of `family`, in declaration order.
pub(crate) fn members(family: CapabilityFamily) -> Vec<&'static str> {
    Capability::ALL
        .iter()
        .filter(|capability| capability.family() == family)
        .map(|capability| capability.name())
        .collect()
}

/// What `grant_declared` grants a plugin: the names of its manifest's declaration that this
/// host serves, exactly as declared (a declaration is exact names, as MaiBot grants it).
pub fn declared_grants(declared: &[String]) -> impl Iterator<Item = &String> {
    declared
        .iter()
        .filter(|name| name.parse::<Capability>().is_ok())
}

/// The names of a plugin's declaration that no capability of this host answers
/// (`send_message`, `send.video`, `platform:wechat`): reported, never granted, and a call to
/// one is refused. A declaration is read as a grant is, so a family's `kv.*` (which the Rust
/// SDK's `capability` accepts) or `*` is served.
pub fn unserved(declared: &[String]) -> Vec<String> {
    declared
        .iter()
        .filter(|name| check_grant(name).is_err())
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests;
