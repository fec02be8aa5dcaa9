//! Finding a program the way a shell does: a name with a `/` is a path, a bare name is the
//! first executable file of that name in a `PATH` list. Runner executables and the Python
//! interpreters a MaiBot environment is made from are found this way.

use std::ffi::OsStr;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Resolves a program against `base`: a bare name (no `/`) is left for a `PATH` lookup,
/// anything else is a path relative to `base`.
pub fn resolve(base: &Path, program: &Path) -> PathBuf {
    if program.components().count() == 1 && !program.is_absolute() {
        program.to_path_buf()
    } else {
        base.join(program)
    }
}

/// Where `program` is: itself when it has a `/` (and exists), else the first executable file
/// of that name in the directories of `path` (a `PATH` value).
pub fn find_in(program: &Path, path: Option<&OsStr>) -> Option<PathBuf> {
    if program.components().count() != 1 || program.is_absolute() {
        return program.exists().then(|| program.to_path_buf());
    }
    std::env::split_paths(path?)
        .map(|dir| dir.join(program))
        .find(|candidate| {
            candidate
                .metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}
