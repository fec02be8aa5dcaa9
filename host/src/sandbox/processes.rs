//! The limit on a runner's processes and threads, so that no fork bomb reaches the host: a pids
//! cgroup of its own for each launch when the host can make one (exact, per runner, and it
//! also catches processes that left the runner's process group; the runner is born in it, see
//! `spawner.rs`), else `RLIMIT_NPROC` (which the kernel counts per user and never applies to
//! root), else none, said in `status`.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use super::spawner::Spawner;

/// How the processes of one launch are limited.
#[derive(Debug)]
pub(crate) enum ProcessLimit {
    /// A pids cgroup per launch, which the runner's spawner thread forks it in.
    Cgroup(Spawner),
    /// `RLIMIT_NPROC`, set in the child to this value.
    Rlimit(u64),
    /// Not limited: why.
    Unavailable(String),
}

impl ProcessLimit {
    /// The mechanism, as `status` names it.
    pub(crate) fn mechanism(&self) -> &'static str {
        match self {
            ProcessLimit::Cgroup(_) => "pids cgroup",
            ProcessLimit::Rlimit(_) => "RLIMIT_NPROC",
            ProcessLimit::Unavailable(_) => "none",
        }
    }
}

/// A launch's pids cgroup; dropping it kills what is left in it and removes it.
#[derive(Debug)]
pub(crate) struct CgroupLaunch {
    dir: PathBuf,
}

impl CgroupLaunch {
    /// The cgroup's folder.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// Sets its `pids.max`.
    pub(crate) fn set_max(&self, max: u64) -> std::io::Result<()> {
        std::fs::write(self.dir.join("pids.max"), max.to_string())
    }
}

impl Drop for CgroupLaunch {
    fn drop(&mut self) {
        // Anything still inside escaped the process group the supervisor kills (setsid). The
        // host itself is listed while its spawner thread is still inside: never that one.
        let host = std::process::id() as i32;
        if let Ok(pids) = std::fs::read_to_string(self.dir.join("cgroup.procs")) {
            for pid in pids
                .lines()
                .filter_map(|p| p.trim().parse::<i32>().ok())
                .filter(|pid| *pid != host)
            {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
        }
        if std::fs::remove_dir(&self.dir).is_err() {
            // Killed processes leave the cgroup as they finish exiting: retry off the runtime.
            let dir = self.dir.clone();
            let _ = std::thread::Builder::new()
                .name("cgroup-cleanup".into())
                .spawn(move || {
                    for _ in 0..50 {
                        std::thread::sleep(std::time::Duration::from_millis(20));
                        if std::fs::remove_dir(&dir).is_ok() {
                            return;
                        }
                    }
                    tracing::debug!(dir = %dir.display(), "a runner's pids cgroup is still busy; left in place");
                });
        }
    }
}

/// The limit of `max` processes for one launch of runner `runner`, whose `spawner` forks it
/// in a pids cgroup if the host can make one; `max == 0`: none.
pub(crate) fn limit(runner: &str, max: u64, spawner: &Spawner) -> ProcessLimit {
    if max == 0 {
        return ProcessLimit::Unavailable("max_processes = 0".into());
    }
    if let Some(parent) = own_pids_cgroup() {
        match spawner.ready(parent, max) {
            Ok(()) => return ProcessLimit::Cgroup(spawner.clone()),
            Err(err) => tracing::debug!("no pids cgroup for runner {runner}: {err}"),
        }
    }
    if nix::unistd::getuid().is_root() {
        return ProcessLimit::Unavailable(
            "no writable pids cgroup, and the kernel does not apply RLIMIT_NPROC to root: run maitool as another user, or give it a pids cgroup (docs/OPERATIONS.md)".into(),
        );
    }
    // The kernel counts every task of the user against RLIMIT_NPROC, so the limit sits that
    // far above the tasks already running (all users' count: cheap, and never below).
    ProcessLimit::Rlimit(running_tasks().unwrap_or(0) + max)
}

/// The tasks (processes and threads) running on the machine, from `/proc/loadavg`.
fn running_tasks() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    text.split_whitespace()
        .nth(3)?
        .split('/')
        .nth(1)?
        .parse()
        .ok()
}

/// The folder under which this host makes its runners' pids cgroups: `maitool-<pid>` in the
/// host's own cgroup of a cgroup v1 pids hierarchy, if there is one and the host may write
/// it. (In cgroup v2 a cgroup with processes may not enable controllers for its children, so
/// the host would first have to move itself; not done.)
fn own_pids_cgroup() -> Option<&'static Path> {
    static FOUND: OnceLock<Option<PathBuf>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            let mounts = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
            let mount = pids_v1_mount(&mounts)?;
            let cgroups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
            let own = own_v1_path(&cgroups, "pids")?;
            let own = mount.join(own.trim_start_matches('/'));
            sweep_stale(&own);
            let dir = own.join(format!("maitool-{}", std::process::id()));
            match std::fs::create_dir(&dir) {
                Ok(()) => Some(dir),
                Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => Some(dir),
                Err(err) => {
                    tracing::debug!(dir = %dir.display(), "no pids cgroup for runners: {err}");
                    None
                }
            }
        })
        .as_deref()
}

/// Removes the empty cgroups that hosts which are gone left under `own` (`maitool-<pid>` and
/// their runners' folders): a host killed with SIGKILL never removes its own.
fn sweep_stale(own: &Path) {
    let Ok(entries) = std::fs::read_dir(own) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix("maitool-")) else {
            continue;
        };
        if pid.parse::<u32>().is_err() || Path::new("/proc").join(pid).exists() {
            continue;
        }
        if let Ok(runners) = std::fs::read_dir(entry.path()) {
            for runner in runners.flatten().filter(|r| r.path().is_dir()) {
                let _ = std::fs::remove_dir(runner.path());
            }
        }
        let _ = std::fs::remove_dir(entry.path());
    }
}

/// The mount point of a cgroup v1 hierarchy with the pids controller, from mountinfo.
pub(crate) fn pids_v1_mount(mountinfo: &str) -> Option<PathBuf> {
    mountinfo.lines().find_map(|line| {
        let (before, after) = line.split_once(" - ")?;
        let mut fields = after.split_whitespace();
        let (fstype, _source, options) = (fields.next()?, fields.next()?, fields.next()?);
        let pids = fstype == "cgroup" && options.split(',').any(|o| o == "pids");
        if !pids {
            return None;
        }
        before.split_whitespace().nth(4).map(PathBuf::from)
    })
}

/// This process's path in the v1 hierarchy of `controller`, from `/proc/self/cgroup`.
pub(crate) fn own_v1_path(cgroups: &str, controller: &str) -> Option<String> {
    cgroups.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let (_id, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        controllers
            .split(',')
            .any(|c| c == controller)
            .then(|| path.to_owned())
    })
}

/// Makes a fresh cgroup under `parent` for a launch of runner `runner`, limited to `max`
/// tasks.
pub(crate) fn make_cgroup(parent: &Path, runner: &str, max: u64) -> std::io::Result<CgroupLaunch> {
    static LAUNCHES: AtomicU64 = AtomicU64::new(0);
    let name: String = runner
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let dir = parent.join(format!(
        "{name}-{}",
        LAUNCHES.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir(&dir)?;
    let launch = CgroupLaunch { dir };
    launch.set_max(max)?;
    Ok(launch)
}
