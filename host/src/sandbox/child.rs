//! What the runner's process does to itself between `fork` and `exec` (it was forked inside
//! its pids cgroup already): set its resource limits, give up root's capabilities, and restrict itself with the Landlock
//! ruleset the host prepared before forking. Everything here is a system call on values made
//! before the fork: no allocation, no lock, as the child of a multi-threaded process requires.

use landlock::RulesetCreated;
use nix::errno::Errno;
use nix::sys::resource::{Resource, setrlimit};

/// Everything the child applies, prepared by the host.
#[derive(Debug)]
pub(crate) struct ChildSetup {
    /// Resource limits, soft and hard alike (the plugin cannot raise them back).
    pub(crate) limits: Vec<(Resource, u64)>,
    /// For a host running as root: the highest capability number, all of which are dropped.
    pub(crate) drop_capabilities: Option<u32>,
    /// The Landlock ruleset, rules added; `None`: no Landlock (mode off).
    pub(crate) ruleset: Option<RulesetCreated>,
}

impl ChildSetup {
    /// Makes the process `command` starts apply `self` before `exec`; a failure fails the
    /// spawn with the OS error.
    #[allow(unsafe_code)]
    pub(crate) fn install(self, command: &mut tokio::process::Command) {
        let mut setup = self;
        // SAFETY: `pre_exec` runs the closure in the forked child before `exec`, where only
        // async-signal-safe calls are allowed. `apply` only makes system calls (setrlimit,
        // prctl, capset, landlock_restrict_self) on descriptors and values the host
        // made before forking, the `limits` vector is read, not grown, and errors are built
        // from an errno, which does not allocate. The ruleset is taken out of an `Option`, so
        // a second call (there is none) would find nothing to apply, not a closed descriptor.
        unsafe {
            command.pre_exec(move || setup.apply());
        }
    }

    fn apply(&mut self) -> std::io::Result<()> {
        for (resource, value) in &self.limits {
            setrlimit(*resource, *value, *value)?;
        }
        if let Some(last) = self.drop_capabilities {
            drop_capabilities(last)?;
        }
        if let Some(ruleset) = self.ruleset.take() {
            // The crate sets no_new_privs, then restricts this (single-threaded) process; its
            // error carries the errno, read here without formatting anything.
            if ruleset.restrict_self().is_err() {
                let errno = match Errno::last() {
                    Errno::UnknownErrno => Errno::EPERM,
                    errno => errno,
                };
                return Err(std::io::Error::from_raw_os_error(errno as i32));
            }
        }
        Ok(())
    }
}

/// Empties the capability bounding set, the ambient set and the permitted, effective and
/// inheritable sets, so that a runner started by root keeps none across `exec` (root gets
/// every capability in its bounding set at `exec`): no raw sockets around the TCP rules, no
/// module loading, no reboot. Ownership of root's files is untouched.
#[allow(unsafe_code)]
fn drop_capabilities(last: u32) -> std::io::Result<()> {
    for capability in 0..=last {
        // SAFETY: prctl(2) with integer arguments only; async-signal-safe.
        let dropped =
            unsafe { libc::prctl(libc::PR_CAPBSET_DROP, capability as libc::c_ulong, 0, 0, 0) };
        // EINVAL: a capability this kernel does not know; nothing to drop.
        if dropped != 0 && Errno::last() != Errno::EINVAL {
            return Err(std::io::Error::from_raw_os_error(Errno::last() as i32));
        }
    }
    // SAFETY: as above.
    let cleared = unsafe {
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL as libc::c_ulong,
            0,
            0,
            0,
        )
    };
    if cleared != 0 && Errno::last() != Errno::EINVAL {
        return Err(std::io::Error::from_raw_os_error(Errno::last() as i32));
    }
    let header = CapHeader {
        version: LINUX_CAPABILITY_VERSION_3,
        pid: 0,
    };
    let data = [CapData::default(); 2];
    // SAFETY: capset(2) reads one header and two data structs (version 3), both on this
    // stack frame and laid out as the kernel's `__user_cap_header_struct` and
    // `__user_cap_data_struct`; async-signal-safe.
    let set = unsafe { libc::syscall(libc::SYS_capset, &header, data.as_ptr()) };
    if set != 0 {
        return Err(std::io::Error::from_raw_os_error(Errno::last() as i32));
    }
    Ok(())
}

const LINUX_CAPABILITY_VERSION_3: u32 = 0x2008_0522;

#[repr(C)]
struct CapHeader {
    version: u32,
    pid: i32,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// The highest capability number this kernel knows.
pub(crate) fn last_capability() -> u32 {
    std::fs::read_to_string("/proc/sys/kernel/cap_last_cap")
        .ok()
        .and_then(|text| text.trim().parse().ok())
        .unwrap_or(40)
}
