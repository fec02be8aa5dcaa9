//! Capability grants as the operator writes them: an exact name (`send.text`), a family
//! (`kv.*`) or `*`, checked when the configuration is read and matched on every `cap.call`.

use maitool_protocol::capability::{Capability, CapabilityFamily};

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
    /// Neither a capability nor a family nor `*`.
    #[error(
        "{grant:?} is not a capability: grant an exact name (send.text), a family (kv.*) or \"*\""
    )]
    Unknown {
        /// The grant as written.
        grant: String,
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

/// Checks one grant of the configuration: an exact name (`send.text`), a family (`kv.*`) or
/// `*`. A name without a dot is refused with the grant it probably meant, so that a grant
/// never looks broader, or narrower, than what it does.
pub fn check_grant(grant: &str) -> Result<(), GrantError> {
    if grant == "*" || grant.contains('.') {
        return Ok(());
    }
    let members: Vec<&'static str> = Capability::ALL
        .iter()
        .filter(|capability| capability.family().name() == grant)
        .map(|capability| capability.name())
        .collect();
    let grant = grant.to_owned();
    Err(if members.is_empty() {
        GrantError::Unknown { grant }
    } else {
        GrantError::BareFamily { grant, members }
    })
}
