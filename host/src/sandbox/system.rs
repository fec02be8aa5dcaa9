//! The system's folders every runner may read: shared libraries and programs, certificates,
//! time zones, name resolution, and the kernel's read-only views of itself. Nothing here is a
//! user's: no home folder, no `/tmp`, no `/etc` beyond what programs read to run.

use std::path::PathBuf;
use std::sync::OnceLock;

/// Read and execute: programs, libraries, interpreters installed system-wide, shared data
/// (time zones, certificates, fonts under `/usr/share`). A missing one is skipped.
const PROGRAMS: &[&str] = &[
    "/usr",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/bin",
    "/sbin",
    "/opt/homebrew",
];

/// Read: what programs read from `/etc` to start and to reach the network. The rest of
/// `/etc` (an operator's own configuration may live there) stays closed.
const ETC: &[&str] = &[
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "ld.so.preload",
    "localtime",
    "timezone",
    "zoneinfo",
    "ssl",
    "ca-certificates",
    "ca-certificates.conf",
    "pki",
    "crypto-policies",
    "resolv.conf",
    "hosts",
    "host.conf",
    "nsswitch.conf",
    "gai.conf",
    "services",
    "protocols",
    "passwd",
    "group",
    "mime.types",
    "os-release",
    "lsb-release",
    "debian_version",
    "alternatives",
    "fonts",
    "locale.alias",
    "locale.conf",
    "default/locale",
];

/// Read: the kernel's views. `/proc` shows this process and others, but Landlock refuses a
/// sandboxed process the ptrace-guarded files of processes outside its sandbox
/// (`/proc/PID/environ`, `mem`, `fd`); `/sys` answers CPU counts and cgroup limits.
const KERNEL: &[&str] = &["/proc", "/sys"];

/// Read and write: the character devices every program may use.
pub(crate) const DEVICES_RW: &[&str] = &["/dev/null", "/dev/zero", "/dev/full", "/dev/tty"];
/// Read: randomness.
pub(crate) const DEVICES_READ: &[&str] = &["/dev/random", "/dev/urandom"];

/// The system's read (and execute) paths that exist on this machine, looked up once: a
/// restart does not stat them again.
pub(crate) fn read_paths() -> &'static [PathBuf] {
    static FOUND: OnceLock<Vec<PathBuf>> = OnceLock::new();
    FOUND.get_or_init(existing_read_paths)
}

fn existing_read_paths() -> Vec<PathBuf> {
    PROGRAMS
        .iter()
        .map(PathBuf::from)
        .chain(ETC.iter().map(|name| PathBuf::from("/etc").join(name)))
        .chain(KERNEL.iter().map(PathBuf::from))
        .chain(DEVICES_READ.iter().map(PathBuf::from))
        .filter(|path| path.exists())
        .collect()
}
