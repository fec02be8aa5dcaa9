//! Claiming the control socket's path: what may be replaced there, and what must not.
//!
//! `--control-socket PATH` comes from the operator, who may mistype it: the only thing serve
//! ever removes at PATH is a socket that no process answers on (left by a serve that was
//! killed), and on exit only the socket it bound itself. A regular file, a directory or a
//! symbolic link is refused and left as it is.

use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// Why the control socket cannot be opened.
#[derive(Debug, thiserror::Error)]
pub enum ControlSocketError {
    /// A host answers on the socket already.
    #[error("another maitool serve is already running on {0}")]
    InUse(PathBuf),
    /// Something other than a socket is at the path.
    #[error(
        "{path} is {kind}, not a socket: refusing to replace it (remove it, or choose another --control-socket or host.control_socket)"
    )]
    NotASocket {
        /// The path.
        path: PathBuf,
        /// What is there: "a regular file", "a directory", ...
        kind: &'static str,
    },
    /// The path or its directory could not be prepared, or the socket not bound (the OS's
    /// reason is the source).
    #[error("cannot open the control socket {path}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

/// Which file a bound socket is, to remove it on exit only if it is still that file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct SocketIdentity {
    dev: u64,
    ino: u64,
}

impl SocketIdentity {
    /// The socket at `path` now, if a socket is there.
    pub(super) fn of(path: &Path) -> Option<SocketIdentity> {
        let meta = std::fs::symlink_metadata(path).ok()?;
        meta.file_type().is_socket().then(|| SocketIdentity {
            dev: meta.dev(),
            ino: meta.ino(),
        })
    }
}

/// The absolute form of `path`: a bare name (`bare.sock`) is in the working directory.
pub fn absolute(path: &Path) -> Result<PathBuf, ControlSocketError> {
    std::path::absolute(path).map_err(|source| ControlSocketError::Io {
        path: path.to_path_buf(),
        source,
    })
}

fn kind(file_type: std::fs::FileType) -> &'static str {
    if file_type.is_file() {
        "a regular file"
    } else if file_type.is_dir() {
        "a directory"
    } else if file_type.is_symlink() {
        "a symbolic link"
    } else if file_type.is_fifo() {
        "a named pipe"
    } else {
        "a device"
    }
}

/// Makes `path` (absolute) free to bind: creates its directory (0700) when missing, and
/// removes a stale socket. Fails when a host answers there or something else is there.
pub(super) async fn prepare(path: &Path) -> Result<(), ControlSocketError> {
    let io = |source| ControlSocketError::Io {
        path: path.to_path_buf(),
        source,
    };
    if let Some(parent) = path.parent()
        && !parent.exists()
    {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(parent)
            .map_err(io)?;
    }
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(err) => return Err(io(err)),
    };
    if !meta.file_type().is_socket() {
        return Err(ControlSocketError::NotASocket {
            path: path.to_path_buf(),
            kind: kind(meta.file_type()),
        });
    }
    if super::ControlClient::connect(path).await.is_some() {
        return Err(ControlSocketError::InUse(path.to_path_buf()));
    }
    tracing::info!("removing the stale control socket {}", path.display());
    std::fs::remove_file(path).map_err(io)
}

/// Removes the socket at `path` if it is still the one identified by `bound`.
pub(super) fn remove_if_ours(path: &Path, bound: Option<SocketIdentity>) {
    if bound.is_some() && SocketIdentity::of(path) == bound {
        let _ = std::fs::remove_file(path);
    }
}
