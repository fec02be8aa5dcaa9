//! Containment of runner processes (on Linux, on by default): a Landlock ruleset (what the
//! runner may read, write, connect to and signal), resource limits (address space, open files,
//! and processes through a pids cgroup or `RLIMIT_NPROC`), and, for a host running as root,
//! no capabilities. The host builds everything before forking; the child applies it before
//! `exec` (`child.rs`), so the runner, whatever its language, starts inside.
//!
//! The plugin runtime says what a runner must reach besides the system (`RunnerNeeds`: its
//! executable or interpreter, its plugin folders, their data folders); this module adds the
//! system's folders (`system.rs`), a private temporary folder, the operator's widening
//! (`[runners.sandbox]`, `config.rs`) and the network rules, and reports the result
//! (`status.rs`) with what the kernel could not enforce (`kernel.rs`).

use std::path::PathBuf;
use std::sync::Arc;

use landlock::{
    Access, AccessFs, AccessNet, CompatLevel, Compatible, NetPort, Ruleset, RulesetAttr,
    RulesetCreatedAttr, Scope, path_beneath_rules,
};
use nix::sys::resource::{Resource, getrlimit};
use tokio::process::Child;

mod child;
mod config;
mod home;
mod kernel;
mod processes;
mod spawner;
mod status;
mod system;

pub use config::{NetworkAccess, SandboxConfigError, SandboxMode, SandboxSettings, WEB_PORTS};
pub use home::SandboxHome;
pub use status::{SandboxLimits, SandboxState, SandboxStatus};

use self::child::ChildSetup;
use self::home::RulesKey;
use self::kernel::{Landlock, TARGET_ABI};
use self::processes::ProcessLimit;

/// What one runner must reach besides the system's folders, by its kind: filled in by the
/// plugin runtime.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct RunnerNeeds {
    /// Read and execute: the executable or interpreter and its environment, plugin folders.
    pub read: Vec<PathBuf>,
    /// Read and write: the plugins' data folders (and what a runner kind writes by design).
    pub write: Vec<PathBuf>,
}

/// Why a runner's sandbox could not be prepared; the runner is not started.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// `sandbox = "required"` and something cannot be enforced.
    #[error("the sandbox is required (mode \"required\") but cannot be enforced in full: {0}")]
    Required(String),
    /// The private temporary folder could not be made.
    #[error("cannot make the runner's private temporary folder")]
    TempDir(#[source] std::io::Error),
    /// The kernel refused the ruleset.
    #[error("cannot build the runner's Landlock ruleset")]
    Ruleset(#[source] landlock::RulesetError),
}

/// One launch's sandbox: the setup the child applies, the environment it gets, and what
/// lives as long as the launch (its pids cgroup; the temporary folder's content).
#[derive(Debug)]
pub struct SandboxLaunch {
    status: SandboxStatus,
    setup: Option<ChildSetup>,
    /// The runner's private temporary folder, emptied when the launch ends.
    temp: Option<Arc<tempfile::TempDir>>,
    /// The spawner that forks the runner in a pids cgroup, with the limit.
    spawn_in_cgroup: Option<(spawner::Spawner, u64)>,
    /// The launch's pids cgroup, once the runner was started in it.
    cgroup: Option<processes::CgroupLaunch>,
}

impl Drop for SandboxLaunch {
    fn drop(&mut self) {
        if let Some(temp) = &self.temp {
            home::empty_folder(temp.path());
        }
    }
}

impl SandboxLaunch {
    /// What `status` shows for this launch.
    pub fn status(&self) -> &SandboxStatus {
        &self.status
    }

    /// Makes `command` start inside this sandbox: the child applies it before `exec`, and
    /// gets its private temporary folder as `TMPDIR`, `TMP` and `TEMP`.
    pub fn install(&mut self, command: &mut tokio::process::Command) {
        if let Some(temp) = &self.temp {
            for name in ["TMPDIR", "TMP", "TEMP"] {
                command.env(name, temp.path());
            }
        }
        if let Some(setup) = self.setup.take() {
            setup.install(command);
        }
    }

    /// Starts `command`, which [`Self::install`] prepared: in the launch's pids cgroup when
    /// processes are limited that way (from the runner's spawner thread, off the async
    /// runtime), else from the calling thread.
    pub async fn spawn(&mut self, mut command: tokio::process::Command) -> std::io::Result<Child> {
        match self.spawn_in_cgroup.take() {
            Some((spawner, max)) => {
                let (child, cgroup) = spawner.spawn(command, max).await?;
                self.cgroup = Some(cgroup);
                Ok(child)
            }
            None => command.spawn(),
        }
    }
}

/// Prepares the sandbox of one launch of runner `runner`: `settings` are its
/// `[runners.sandbox]`, `default_mode` is `[plugin_runtime] sandbox`, `home` what the
/// runner's sandbox keeps across its launches.
pub fn prepare(
    runner: &str,
    settings: &SandboxSettings,
    default_mode: SandboxMode,
    needs: &RunnerNeeds,
    home: &SandboxHome,
) -> Result<SandboxLaunch, SandboxError> {
    let mode = settings.mode_or(default_mode);
    if mode == SandboxMode::Off {
        return Ok(SandboxLaunch {
            status: off_status(settings),
            setup: None,
            temp: None,
            spawn_in_cgroup: None,
            cgroup: None,
        });
    }
    let temp = home.temp().map_err(SandboxError::TempDir)?;
    let read: Vec<PathBuf> = system::read_paths()
        .iter()
        .cloned()
        .chain(needs.read.iter().cloned())
        .chain(existing(runner, "read", &settings.read))
        .collect();
    let write: Vec<PathBuf> = needs
        .write
        .iter()
        .cloned()
        .chain(std::iter::once(temp.path().to_path_buf()))
        .chain(existing(runner, "write", &settings.write))
        .collect();
    let landlock = kernel::landlock();
    let mut missing = landlock.missing();
    let all_network = settings.network == NetworkAccess::All;
    let connect_ports = if all_network {
        Vec::new()
    } else {
        settings.connect_ports()
    };
    let bind_ports = if all_network {
        Vec::new()
    } else {
        settings.bind_ports.clone()
    };
    let processes = processes::limit(runner, settings.max_processes, home.spawner());
    if let ProcessLimit::Unavailable(why) = &processes
        && settings.max_processes > 0
    {
        missing.push(format!("the process limit ({why})"));
    }
    if mode == SandboxMode::Required && !missing.is_empty() {
        return Err(SandboxError::Required(missing.join("; ")));
    }
    let ruleset = match landlock {
        Landlock::Available { .. } => {
            let key = RulesKey {
                mode,
                read: read.clone(),
                write: write.clone(),
                all_network,
                connect_ports: connect_ports.clone(),
                bind_ports: bind_ports.clone(),
            };
            Some(home.ruleset(key, ruleset).map_err(SandboxError::Ruleset)?)
        }
        Landlock::Unavailable(_) => None,
    };
    let mut limits = Vec::new();
    let mut limit = |resource: Resource, value: u64| {
        if value > 0 {
            // Above the hard limit the host has, setrlimit would fail: the lower one holds.
            let hard = getrlimit(resource).map(|(_, hard)| hard).unwrap_or(value);
            limits.push((resource, value.min(hard)));
        }
    };
    limit(
        Resource::RLIMIT_AS,
        settings.max_address_space_mb.saturating_mul(1024 * 1024),
    );
    limit(Resource::RLIMIT_NOFILE, settings.max_open_files);
    let processes_by = processes.mechanism().to_owned();
    let spawn_in_cgroup = match processes {
        ProcessLimit::Cgroup(spawner) => Some((spawner, settings.max_processes)),
        ProcessLimit::Rlimit(value) => {
            limit(Resource::RLIMIT_NPROC, value);
            None
        }
        ProcessLimit::Unavailable(_) => None,
    };
    let status = SandboxStatus {
        state: if missing.is_empty() {
            SandboxState::Full
        } else {
            SandboxState::Partial
        },
        mode: mode.as_str().to_owned(),
        landlock_abi: landlock.abi(),
        detail: summary(&read, &write, all_network, &connect_ports, &bind_ports),
        missing,
        read: read.iter().map(|p| p.display().to_string()).collect(),
        write: write.iter().map(|p| p.display().to_string()).collect(),
        network: if all_network { "all" } else { "ports" }.to_owned(),
        connect_ports,
        bind_ports,
        limits: SandboxLimits {
            address_space_mb: settings.max_address_space_mb,
            open_files: settings.max_open_files,
            processes: settings.max_processes,
            processes_by,
        },
    };
    Ok(SandboxLaunch {
        status,
        setup: Some(ChildSetup {
            limits,
            drop_capabilities: nix::unistd::geteuid()
                .is_root()
                .then(child::last_capability),
            ruleset,
        }),
        temp: Some(temp),
        spawn_in_cgroup,
        cgroup: None,
    })
}

/// The ruleset: `read` and the devices readable, `write` writable, the TCP ports, and the
/// scoping of signals and abstract sockets to the runner's own sandbox.
fn ruleset(key: &RulesKey) -> Result<landlock::RulesetCreated, landlock::RulesetError> {
    let RulesKey {
        mode,
        read,
        write,
        all_network,
        connect_ports,
        bind_ports,
    } = key;
    let all_network = *all_network;
    let level = match mode {
        SandboxMode::Required => CompatLevel::HardRequirement,
        _ => CompatLevel::BestEffort,
    };
    let mut ruleset = Ruleset::default()
        .set_compatibility(level)
        .handle_access(AccessFs::from_all(TARGET_ABI))?
        .scope(Scope::from_all(TARGET_ABI))?;
    if !all_network {
        ruleset = ruleset.handle_access(AccessNet::from_all(TARGET_ABI))?;
    }
    let read_access = AccessFs::from_read(TARGET_ABI);
    let write_access = AccessFs::from_all(TARGET_ABI);
    let device_access = AccessFs::from_read(TARGET_ABI) | AccessFs::WriteFile;
    let mut created = ruleset
        .create()?
        .add_rules(path_beneath_rules(read, read_access))?
        .add_rules(path_beneath_rules(write, write_access))?
        .add_rules(path_beneath_rules(system::DEVICES_RW, device_access))?;
    if !all_network {
        for port in connect_ports {
            created = created.add_rule(NetPort::new(*port, AccessNet::ConnectTcp))?;
        }
        for port in bind_ports {
            created = created.add_rule(NetPort::new(*port, AccessNet::BindTcp))?;
        }
    }
    Ok(created)
}

/// The operator's extra paths that exist; a missing one is skipped with a warning.
fn existing<'a>(
    runner: &'a str,
    key: &'static str,
    paths: &'a [PathBuf],
) -> impl Iterator<Item = PathBuf> + 'a {
    paths.iter().filter_map(move |path| {
        if path.exists() {
            Some(path.clone())
        } else {
            tracing::warn!(runner, path = %path.display(), "runners.{runner}.sandbox.{key}: no such file or folder; skipped");
            None
        }
    })
}

fn summary(
    read: &[PathBuf],
    write: &[PathBuf],
    all_network: bool,
    connect_ports: &[u16],
    bind_ports: &[u16],
) -> String {
    let ports = |ports: &[u16]| {
        if ports.is_empty() {
            "none".to_owned()
        } else {
            ports
                .iter()
                .map(u16::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    let network = if all_network {
        "any network".to_owned()
    } else {
        format!(
            "TCP connect to ports {}, listen on {}",
            ports(connect_ports),
            ports(bind_ports)
        )
    };
    format!(
        "reads {} paths, writes {} ({}); {network}; signals only its own processes",
        read.len(),
        write.len(),
        write
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

fn off_status(settings: &SandboxSettings) -> SandboxStatus {
    let why = if settings.mode == Some(SandboxMode::Off) {
        "the runner's sandbox.mode = \"off\""
    } else {
        "[plugin_runtime] sandbox = \"off\""
    };
    SandboxStatus {
        state: SandboxState::Off,
        mode: "off".into(),
        landlock_abi: None,
        detail: format!(
            "off by the operator's choice ({why}): the runner can do anything its user can"
        ),
        missing: Vec::new(),
        read: Vec::new(),
        write: Vec::new(),
        network: "all".into(),
        connect_ports: Vec::new(),
        bind_ports: Vec::new(),
        limits: SandboxLimits {
            address_space_mb: 0,
            open_files: 0,
            processes: 0,
            processes_by: "none".into(),
        },
    }
}

/// `name` as a file-name part: ASCII letters, digits, `.`, `_` and `-`, anything else `_`.
fn file_name_safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
