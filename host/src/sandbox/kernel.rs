//! What the running kernel's Landlock supports, asked once per host process through the
//! crate's own status: a short-lived thread restricts itself with every right the runners'
//! rules handle and reports what was enforced. Landlock applies to the calling thread only, so
//! the rest of the host is untouched.

use std::sync::OnceLock;

use landlock::{
    ABI, Access, AccessFs, AccessNet, LandlockStatus, Ruleset, RulesetAttr, RulesetStatus, Scope,
};

/// The newest Landlock ABI the runners' rules are written and tested for. A newer kernel
/// enforces these rules as they are; an older one enforces what it knows (best effort, or
/// refused under `sandbox = "required"`).
pub(crate) const TARGET_ABI: ABI = ABI::V7;

/// What the kernel supports, as far as the runners' rules go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Landlock {
    /// Landlock works; `abi` is the effective ABI (at most [`TARGET_ABI`]).
    Available {
        /// The ABI in force.
        abi: u8,
    },
    /// No Landlock: why, in the operator's words.
    Unavailable(String),
}

impl Landlock {
    /// The ABI in force, if any.
    pub(crate) fn abi(&self) -> Option<u8> {
        match self {
            Landlock::Available { abi } => Some(*abi),
            Landlock::Unavailable(_) => None,
        }
    }

    /// What the runners' rules need that this kernel does not enforce, one phrase each.
    pub(crate) fn missing(&self) -> Vec<String> {
        match self {
            Landlock::Unavailable(why) => {
                vec![format!("filesystem, network and signal rules ({why})")]
            }
            Landlock::Available { abi } => missing_below(*abi),
        }
    }
}

/// The features of ABIs above `abi` (up to [`TARGET_ABI`]) that the rules use.
pub(crate) fn missing_below(abi: u8) -> Vec<String> {
    const FEATURES: [(u8, &str); 5] = [
        (2, "moving files between folders (Landlock ABI 2)"),
        (3, "truncation rules (Landlock ABI 3)"),
        (4, "TCP connect and bind rules (Landlock ABI 4, Linux 6.7)"),
        (5, "device ioctl rules (Landlock ABI 5)"),
        (
            6,
            "signal and abstract-socket scoping (Landlock ABI 6, Linux 6.12)",
        ),
    ];
    FEATURES
        .iter()
        .filter(|(needs, _)| abi < *needs)
        .map(|(_, what)| (*what).to_owned())
        .collect()
}

/// The number of a Landlock ABI.
pub(crate) fn abi_number(abi: ABI) -> u8 {
    match abi {
        ABI::Unsupported => 0,
        ABI::V1 => 1,
        ABI::V2 => 2,
        ABI::V3 => 3,
        ABI::V4 => 4,
        ABI::V5 => 5,
        ABI::V6 => 6,
        ABI::V7 => 7,
        // Newer than the rules' target: the crate never uses more than what it was asked for.
        _ => abi_number(TARGET_ABI),
    }
}

/// The kernel's Landlock support (probed on first use, then remembered).
pub(crate) fn landlock() -> &'static Landlock {
    static PROBED: OnceLock<Landlock> = OnceLock::new();
    PROBED.get_or_init(|| {
        let probe = std::thread::Builder::new()
            .name("landlock-probe".into())
            .spawn(probe_in_this_thread);
        match probe.map(|thread| thread.join()) {
            Ok(Ok(found)) => found,
            Ok(Err(_)) => Landlock::Unavailable("the Landlock probe panicked".into()),
            Err(err) => Landlock::Unavailable(format!("cannot start the Landlock probe: {err}")),
        }
    })
}

/// Restricts the calling thread with every handled right and no rule, and reads back what the
/// kernel enforced. Only for a thread that does nothing afterwards.
fn probe_in_this_thread() -> Landlock {
    let restricted = Ruleset::default()
        .handle_access(AccessFs::from_all(TARGET_ABI))
        .and_then(|r| r.handle_access(AccessNet::from_all(TARGET_ABI)))
        .and_then(|r| r.scope(Scope::from_all(TARGET_ABI)))
        .and_then(|r| r.create())
        .and_then(|r| r.restrict_self());
    match restricted {
        Err(err) => Landlock::Unavailable(format!("the kernel refused a ruleset: {err}")),
        Ok(status) => match (status.landlock, status.ruleset) {
            (_, RulesetStatus::NotEnforced) | (LandlockStatus::NotImplemented, _) => {
                Landlock::Unavailable(match status.landlock {
                    LandlockStatus::NotEnabled => {
                        "Landlock is built into this kernel but not enabled: add `landlock` to the `lsm=` boot parameter".into()
                    }
                    _ => "this kernel has no Landlock (Linux 5.13 or later, CONFIG_SECURITY_LANDLOCK)".into(),
                })
            }
            (LandlockStatus::NotEnabled, _) => Landlock::Unavailable(
                "Landlock is built into this kernel but not enabled: add `landlock` to the `lsm=` boot parameter".into(),
            ),
            (LandlockStatus::Available { effective_abi, .. }, _) => Landlock::Available {
                abi: abi_number(effective_abi),
            },
        },
    }
}
