use std::path::{Path, PathBuf};

use super::{needs, python_roots};
use crate::plugin::config::ResolvedRunner;

/// A venv laid out as `python -m venv` makes it: `bin/python` a symlink to the base
/// interpreter, `pyvenv.cfg` naming the base's `bin` as `home`.
fn fake_venv(root: &Path, base: &Path) -> PathBuf {
    let base_bin = base.join("bin");
    std::fs::create_dir_all(&base_bin).unwrap();
    let interpreter = base_bin.join("python3.12");
    std::fs::write(&interpreter, "").unwrap();
    let venv = root.join("venv");
    std::fs::create_dir_all(venv.join("bin")).unwrap();
    std::os::unix::fs::symlink(&interpreter, venv.join("bin/python")).unwrap();
    std::fs::write(
        venv.join("pyvenv.cfg"),
        format!(
            "home = {}\ninclude-system-site-packages = false\n",
            base_bin.display()
        ),
    )
    .unwrap();
    venv
}

#[test]
fn a_venv_python_needs_the_venv_and_the_installation_it_was_made_from() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("pyenv/versions/3.12.1");
    let venv = fake_venv(dir.path(), &base);
    let roots = python_roots(&venv.join("bin/python"));
    assert_eq!(roots, vec![venv, base.clone()], "{roots:?}");
}

#[test]
fn an_interpreter_outside_a_venv_needs_its_installation_only() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("opt/python");
    std::fs::create_dir_all(base.join("bin")).unwrap();
    std::fs::write(base.join("bin/python3"), "").unwrap();
    assert_eq!(python_roots(&base.join("bin/python3")), vec![base]);
    assert!(python_roots(&dir.path().join("missing/bin/python3")).is_empty());
}

#[test]
fn a_maitool_runner_reads_its_executable_and_writes_only_its_data_folders() {
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("runner");
    std::fs::write(&exe, "").unwrap();
    let data = dir.path().join("data/plugins/a");
    let found = needs(&ResolvedRunner::maitool("r", &exe), vec![data.clone()]);
    assert_eq!(found.read, vec![exe]);
    assert_eq!(found.write, vec![data]);
}
