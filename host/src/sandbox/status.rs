//! The sandbox in force for a runner, as `status` and `plugins` show it.

use serde::{Deserialize, Serialize};

/// How contained a runner is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SandboxState {
    /// Every rule and limit is enforced.
    Full,
    /// Enforced in part: `missing` says what the kernel or the system could not enforce.
    Partial,
    /// Not contained: `detail` says why (the operator's choice).
    Off,
}

/// The sandbox of a runner's latest launch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SandboxStatus {
    /// Full, partial or off.
    pub state: SandboxState,
    /// `on`, `required` or `off`, as configured.
    pub mode: String,
    /// The Landlock ABI in force, when Landlock is.
    pub landlock_abi: Option<u8>,
    /// One line: what is allowed, or why there is no sandbox.
    pub detail: String,
    /// What could not be enforced, one phrase each.
    #[serde(default)]
    pub missing: Vec<String>,
    /// Folders and files the runner may read and execute.
    #[serde(default)]
    pub read: Vec<String>,
    /// Folders and files the runner may read and write.
    #[serde(default)]
    pub write: Vec<String>,
    /// `ports` (the listed TCP ports) or `all`.
    pub network: String,
    /// TCP ports it may connect to (any address).
    #[serde(default)]
    pub connect_ports: Vec<u16>,
    /// TCP ports it may listen on.
    #[serde(default)]
    pub bind_ports: Vec<u16>,
    /// Resource limits per process (address space, open files) and for the whole runner
    /// (processes and threads).
    pub limits: SandboxLimits,
}

/// A runner's resource limits; 0: none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxLimits {
    /// Virtual memory of one process, MiB.
    pub address_space_mb: u64,
    /// Open files of one process.
    pub open_files: u64,
    /// Processes and threads of the runner.
    pub processes: u64,
    /// What enforces `processes`: `pids cgroup`, `RLIMIT_NPROC` or `none`.
    pub processes_by: String,
}

impl SandboxStatus {
    /// The one line `maitool status` prints under the runner.
    pub fn line(&self) -> String {
        let state = match self.state {
            SandboxState::Full => "full",
            SandboxState::Partial => "partial",
            SandboxState::Off => "off",
        };
        let mut line = match self.landlock_abi {
            Some(abi) => format!("{state} (Landlock ABI {abi}): {}", self.detail),
            None => format!("{state}: {}", self.detail),
        };
        if !self.missing.is_empty() {
            line.push_str(&format!("; not enforced: {}", self.missing.join("; ")));
        }
        line
    }
}
