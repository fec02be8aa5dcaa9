//! What the operator sets: `[plugin_runtime] sandbox` (every runner's mode) and
//! `[runners.sandbox]` (one runner's mode, and what it may reach besides the defaults).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// TCP ports every sandboxed runner may connect to: the web's, which market plugins that
/// search, fetch pages or call web APIs need.
pub const WEB_PORTS: [u16; 2] = [80, 443];

/// Whether runners are contained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SandboxMode {
    /// Contained with whatever the kernel supports; what it lacks is shown in `status`.
    #[default]
    On,
    /// Contained with everything, or not started: a runner the kernel cannot fully sandbox
    /// fails to start, saying what the kernel lacks.
    Required,
    /// Not contained, by the operator's choice (`status` says so on every runner).
    Off,
}

impl SandboxMode {
    /// The name used in the configuration.
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::On => "on",
            SandboxMode::Required => "required",
            SandboxMode::Off => "off",
        }
    }
}

/// Which network a sandboxed runner may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NetworkAccess {
    /// Outbound TCP to the web's ports (80, 443) and to `connect_ports`; listening only on
    /// `bind_ports`.
    #[default]
    Ports,
    /// Any TCP connection and any listening port.
    All,
}

/// One runner's sandbox (`[runners.sandbox]`): every key widens or sets what the defaults
/// give. Paths resolve against the configuration file's directory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SandboxSettings {
    /// This runner's mode; unset: `[plugin_runtime] sandbox`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<SandboxMode>,
    /// More folders or files the runner may read (and execute).
    pub read: Vec<PathBuf>,
    /// More folders or files the runner may read and write.
    pub write: Vec<PathBuf>,
    /// More TCP ports the runner may connect to, on any address (Landlock's rules are per
    /// port, not per address).
    pub connect_ports: Vec<u16>,
    /// TCP ports the runner may listen on; none by default.
    pub bind_ports: Vec<u16>,
    /// `all`: no network rule at all.
    pub network: NetworkAccess,
    /// Most virtual memory one process of the runner may map, in MiB; 0: no limit.
    pub max_address_space_mb: u64,
    /// Most files one process of the runner may hold open; 0: no limit.
    pub max_open_files: u64,
    /// Most processes and threads the runner and everything it starts may run at once;
    /// 0: no limit.
    pub max_processes: u64,
}

impl Default for SandboxSettings {
    fn default() -> Self {
        Self {
            mode: None,
            read: Vec::new(),
            write: Vec::new(),
            connect_ports: Vec::new(),
            bind_ports: Vec::new(),
            network: NetworkAccess::Ports,
            // A Python runner maps a 64 MiB malloc arena per busy thread and an 8 MiB stack
            // per thread: a few GiB of address space are normal, tens are not.
            max_address_space_mb: 8 * 1024,
            max_open_files: 4096,
            max_processes: 512,
        }
    }
}

/// A `[runners.sandbox]` value the host refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SandboxConfigError {
    /// Port 0 is no port a rule can name.
    #[error("port 0 is not a port; name the ports the runner needs (1-65535)")]
    PortZero,
    /// A path that is empty.
    #[error("an empty path names nothing")]
    EmptyPath,
}

impl SandboxSettings {
    /// The settings with `read` and `write` resolved against `base`, checked.
    pub fn resolve(
        &self,
        base: &Path,
    ) -> Result<SandboxSettings, (&'static str, SandboxConfigError)> {
        for (key, ports) in [
            ("connect_ports", &self.connect_ports),
            ("bind_ports", &self.bind_ports),
        ] {
            if ports.contains(&0) {
                return Err((key, SandboxConfigError::PortZero));
            }
        }
        let mut resolved = self.clone();
        for (key, paths) in [("read", &mut resolved.read), ("write", &mut resolved.write)] {
            for path in paths.iter_mut() {
                if path.as_os_str().is_empty() {
                    return Err((key, SandboxConfigError::EmptyPath));
                }
                *path = base.join(&*path);
            }
        }
        Ok(resolved)
    }

    /// The mode in force: this runner's, else `default`.
    pub fn mode_or(&self, default: SandboxMode) -> SandboxMode {
        self.mode.unwrap_or(default)
    }

    /// The TCP ports the runner may connect to: the web's, then the operator's.
    pub fn connect_ports(&self) -> Vec<u16> {
        let mut ports = WEB_PORTS.to_vec();
        for port in &self.connect_ports {
            if !ports.contains(port) {
                ports.push(*port);
            }
        }
        ports
    }
}
