use std::os::unix::fs::PermissionsExt;

use super::*;

/// A fake interpreter: a script answering the probe as a Python of `version` at its own path.
fn fake_python(path: &Path, version: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, format!("#!/bin/sh\necho \"$0\"\necho {version}\n")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn failing(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(
        path,
        "#!/bin/sh\necho 'pyenv: python3.12: command not found' >&2\nexit 127\n",
    )
    .unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn release_names_are_read_and_others_left_out() {
    assert_eq!(release("3.12.1"), Some((3, 12, 1)));
    assert_eq!(release("3.13"), Some((3, 13, 0)));
    assert_eq!(release("3.13-dev"), None);
    assert_eq!(release("pypy3.10-7.3.12"), None);
    assert_eq!(release("miniconda3"), None);
    assert!(new_enough("3.12.0") && new_enough("3.14.2") && new_enough("4.0.0"));
    assert!(!new_enough("3.11.7") && !new_enough("garbage"));
}

#[test]
fn path_names_come_first_then_pyenv_versions_oldest_first() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    fake_python(&bin.join("python3"), "3.11.2");
    fake_python(&bin.join("python3.13"), "3.13.0");
    let root = dir.path().join("pyenv");
    for version in ["3.13.0", "3.12.1", "3.11.7", "3.12-dev", "3.10.13"] {
        let (major_minor, _) = version.rsplit_once('.').unwrap_or((version, ""));
        let exe = root
            .join("versions")
            .join(version)
            .join("bin")
            .join(format!("python{major_minor}"));
        fake_python(&exe, version);
    }
    let search = Search {
        path: Some(bin.clone().into_os_string()),
        pyenv_root: Some(root.clone()),
    };
    assert_eq!(
        candidates(&search),
        [
            bin.join("python3.13"),
            bin.join("python3"),
            root.join("versions/3.12.1/bin/python3.12"),
            root.join("versions/3.13.0/bin/python3.13"),
        ]
    );
}

#[tokio::test]
async fn the_first_candidate_new_enough_is_chosen_and_shims_that_fail_are_passed_over() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    // pyenv's shim for a version the global setting does not select: it fails.
    failing(&bin.join("python3.12"));
    fake_python(&bin.join("python3"), "3.11.2");
    let root = dir.path().join("pyenv");
    fake_python(&root.join("versions/3.12.1/bin/python3.12"), "3.12.1");
    let search = Search {
        path: Some(bin.into_os_string()),
        pyenv_root: Some(root.clone()),
    };
    let found = find(None, &search).await.unwrap();
    assert_eq!(found.version, "3.12.1");
    assert_eq!(found.path, root.join("versions/3.12.1/bin/python3.12"));
}

#[tokio::test]
async fn nothing_new_enough_says_what_each_candidate_was() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    fake_python(&bin.join("python3"), "3.11.2");
    failing(&bin.join("python3.12"));
    let search = Search {
        path: Some(bin.into_os_string()),
        pyenv_root: Some(dir.path().join("no-pyenv")),
    };
    let err = find(None, &search).await.unwrap_err();
    let text = err.to_string();
    assert!(text.contains("python3 is 3.11.2"), "{text}");
    assert!(text.contains("python3.12 does not run"), "{text}");
    assert!(text.contains("base_python"), "{text}");
    let empty = Search::default();
    assert!(
        find(None, &empty)
            .await
            .unwrap_err()
            .to_string()
            .contains("no python3.12")
    );
}

#[tokio::test]
async fn an_explicit_interpreter_is_used_or_refused_with_its_version() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("python-old");
    fake_python(&old, "3.11.7");
    let err = find(Some(&old), &Search::default()).await.unwrap_err();
    assert!(matches!(err, DiscoveryError::TooOld { .. }), "{err}");
    assert!(err.to_string().contains("3.11.7"), "{err}");
    let good = dir.path().join("python-good");
    fake_python(&good, "3.13.1");
    assert_eq!(
        find(Some(&good), &Search::default()).await.unwrap().version,
        "3.13.1"
    );
    let missing = dir.path().join("python-missing");
    let err = find(Some(&missing), &Search::default()).await.unwrap_err();
    assert!(matches!(err, DiscoveryError::Broken { .. }), "{err}");
}

#[tokio::test]
async fn a_real_python_on_this_machine_is_found() {
    // The machine's own interpreters, as the host finds them. CI (MAITOOL_REQUIRE_MAIBOT=1)
    // has one; elsewhere a machine without any says so and the check is skipped.
    match find(None, &Search::from_env()).await {
        Ok(found) => {
            assert!(new_enough(&found.version), "{found:?}");
            assert!(found.path.is_absolute() && found.path.exists(), "{found:?}");
        }
        Err(err) if std::env::var("MAITOOL_REQUIRE_MAIBOT").as_deref() != Ok("1") => {
            eprintln!("\n======== SKIPPED: no Python 3.12+ on this machine: {err} ========\n");
        }
        Err(err) => panic!("{err}"),
    }
}
