//! What a runner must reach besides the system's folders, by its kind: the plugin runtime's
//! half of the sandbox (`crate::sandbox` adds the system, a private temporary folder, the
//! operator's widening and the network rules).
//!
//! - a maitool runner reads its executable (and its plugin folder, if it came from one) and
//!   writes its plugins' data folders;
//! - MaiBot's runner reads its Python (the venv and the installation it was made from) and its
//!   plugin roots, and writes its instance folder (and a checkout's `logs/`) (MaiBot's `data/plugins/<id>`,
//!   `temp/plugins/<id>` and `logs/`) and each plugin folder: the runner writes each plugin's
//!   `config.toml` back into its folder, and market plugins keep their own files there
//!   (`daily_state.json`, `data/`), as MaiBot lets them.

use std::path::{Path, PathBuf};

use super::config::{ResolvedRunner, find_program};
use crate::sandbox::RunnerNeeds;

/// What `launch` must reach; `data_dirs` are its plugins' data folders, as prepared.
pub(crate) fn needs(launch: &ResolvedRunner, data_dirs: Vec<PathBuf>) -> RunnerNeeds {
    let mut read = Vec::new();
    let mut write = data_dirs;
    match &launch.maibot {
        None => {
            read.extend(find_program(&launch.executable));
            read.extend(launch.plugin_dir.iter().cloned());
        }
        Some(maibot) => {
            read.extend(python_roots(&launch.executable));
            read.extend(maibot.source.iter().cloned());
            // MaiBot's logger makes `logs/` in its working directory, the checkout.
            write.extend(maibot.source.iter().map(|source| source.join("logs")));
            read.extend(maibot.plugin_dirs.iter().cloned());
            write.push(maibot.instance_dir.clone());
            write.extend(maibot.folders.values().cloned());
        }
    }
    RunnerNeeds { read, write }
}

/// The folders a Python interpreter runs from: its venv (the folder with `pyvenv.cfg` above
/// `bin/`), the installation the venv was made from (`home` in `pyvenv.cfg`), and the
/// installation its symlinks lead to. A system Python under `/usr` needs nothing more.
pub(crate) fn python_roots(python: &Path) -> Vec<PathBuf> {
    let Some(found) = find_program(python) else {
        return Vec::new();
    };
    let found = std::path::absolute(&found).unwrap_or(found);
    let mut roots = Vec::new();
    if let Some(venv) = found.parent().and_then(Path::parent)
        && let Ok(cfg) = std::fs::read_to_string(venv.join("pyvenv.cfg"))
    {
        roots.push(venv.to_path_buf());
        let home = cfg.lines().find_map(|line| {
            let (key, value) = line.split_once('=')?;
            (key.trim() == "home").then(|| PathBuf::from(value.trim()))
        });
        roots.extend(
            home.as_deref()
                .and_then(Path::parent)
                .map(Path::to_path_buf),
        );
    }
    if let Ok(real) = found.canonicalize()
        && let Some(prefix) = real.parent().and_then(Path::parent)
    {
        roots.push(prefix.to_path_buf());
    }
    // Never the whole filesystem: an interpreter at `/bin/python` has `/` as its prefix.
    roots.retain(|root| root.parent().is_some());
    roots.dedup();
    roots
}

#[cfg(test)]
mod tests;
