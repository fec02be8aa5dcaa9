//! Which file a runner's executable is, so that `reload` restarts a runner whose executable
//! was rebuilt or replaced at the same path (the launch settings alone compare equal).

use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// The identity of an executable file at one moment: a rebuild writes a new file (a new
/// inode, or the same inode with a new size or modification time), and any of these tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ExecutableId {
    device: u64,
    inode: u64,
    size: u64,
    modified_ns: i128,
    changed_ns: i128,
}

impl ExecutableId {
    /// The file `program` names (a bare name is looked up in `PATH`, as at launch), following
    /// symbolic links; `None` when there is no such file.
    pub(crate) fn of(program: &Path) -> Option<ExecutableId> {
        let path = super::config::find_program(program)?;
        let meta = std::fs::metadata(path).ok()?;
        let nanos = |secs: i64, nsec: i64| i128::from(secs) * 1_000_000_000 + i128::from(nsec);
        Some(ExecutableId {
            device: meta.dev(),
            inode: meta.ino(),
            size: meta.size(),
            modified_ns: nanos(meta.mtime(), meta.mtime_nsec()),
            changed_ns: nanos(meta.ctime(), meta.ctime_nsec()),
        })
    }
}

#[cfg(test)]
mod tests;
