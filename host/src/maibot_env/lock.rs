//! One preparation of an environment at a time, across processes: `maitool serve` and
//! `maitool prepare` (or two serves on one data directory) must not install into one venv at
//! once. An exclusive `flock` on `<venv>.lock`, next to the venv (which may not exist yet),
//! released when the lock is dropped or the process dies.

use std::fs::File;
use std::path::{Path, PathBuf};

use nix::fcntl::{Flock, FlockArg};

use super::observer::PrepareObserver;

/// A held lock.
#[derive(Debug)]
pub struct EnvLock {
    _file: Flock<File>,
}

/// Why the lock could not be taken.
#[derive(Debug, thiserror::Error)]
#[error("cannot lock {}", path.display())]
pub struct LockError {
    /// The lock file.
    pub path: PathBuf,
    /// The OS's reason.
    #[source]
    pub source: std::io::Error,
}

/// The lock file of the venv at `venv`.
pub fn lock_path(venv: &Path) -> PathBuf {
    let mut name = venv.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    venv.with_file_name(name)
}

/// Takes the lock of `venv`, waiting (on the blocking pool, not the host's thread) while
/// another process holds it, and saying so to `observer`.
pub async fn lock(venv: &Path, observer: &dyn PrepareObserver) -> Result<EnvLock, LockError> {
    let path = lock_path(venv);
    let error = |source| LockError {
        path: path.clone(),
        source,
    };
    if let Some(parent) = path.parent() {
        tokio::fs::create_dir_all(parent).await.map_err(error)?;
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(error)?;
    let file = match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
        Ok(locked) => return Ok(EnvLock { _file: locked }),
        Err((file, nix::errno::Errno::EWOULDBLOCK)) => file,
        Err((_, errno)) => return Err(error(errno.into())),
    };
    observer.step(&format!(
        "waiting for another maitool that is preparing {}",
        venv.display()
    ));
    let locked = tokio::task::spawn_blocking(move || Flock::lock(file, FlockArg::LockExclusive))
        .await
        .map_err(|join| error(std::io::Error::other(join)))?;
    locked
        .map(|file| EnvLock { _file: file })
        .map_err(|(_, errno)| error(errno.into()))
}

#[cfg(test)]
mod tests;
