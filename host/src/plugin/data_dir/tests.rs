use std::os::unix::fs::PermissionsExt;

use super::{check_plugin_id, prepare};

fn mode(path: &std::path::Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn ordinary_plugin_ids_are_accepted() {
    for id in [
        "examples.notes",
        "author.plugin-2",
        "a..b",
        "x",
        "插件",
        &"p".repeat(255),
    ] {
        assert_eq!(check_plugin_id(id), Ok(()), "{id}");
    }
}

#[test]
fn ids_that_could_escape_the_plugins_directory_are_refused_with_the_reason() {
    let cases = [
        ("", "must not be empty"),
        ("..", "must not start with '.'"),
        (".", "must not start with '.'"),
        (".hidden", "must not start with '.'"),
        ("../evil", "must not start with '.'"),
        ("a/../../evil", "must not contain '/'"),
        ("/etc", "must not contain '/'"),
        ("a\\b", "must not contain '\\\\'"),
        ("a\0b", "must not contain '\\0'"),
        ("a\nb", "must not contain the control character '\\n'"),
    ];
    for (id, reason) in cases {
        let err = check_plugin_id(id).expect_err(id);
        assert_eq!(
            err.to_string(),
            format!("plugin id {id:?} {reason}: it names the plugin's data directory")
        );
    }
    let long = "p".repeat(256);
    assert!(
        check_plugin_id(&long)
            .unwrap_err()
            .to_string()
            .ends_with("is longer than 255 bytes: it names the plugin's data directory")
    );
}

#[test]
fn prepare_creates_owner_only_directories_under_the_root() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("data").join("plugins");
    let dir = prepare(&root, "examples.notes").unwrap();
    assert_eq!(dir, root.join("examples.notes"));
    assert!(dir.is_absolute());
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(mode(&root), 0o700, "missing parents are private too");
    // Idempotent: the next launch finds it and keeps its contents.
    std::fs::write(dir.join("kept"), b"x").unwrap();
    assert_eq!(prepare(&root, "examples.notes").unwrap(), dir);
    assert!(dir.join("kept").exists());
}

#[test]
fn prepare_tightens_an_existing_directory_that_others_could_read() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path().join("examples.notes");
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    prepare(temp.path(), "examples.notes").unwrap();
    assert_eq!(mode(&dir), 0o700);
}

#[test]
fn prepare_refuses_a_bad_id_before_touching_the_filesystem() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("plugins");
    let err = prepare(&root, "../outside").unwrap_err();
    assert!(
        matches!(&err, super::DataDirError::BadId(bad) if bad.problem == super::PluginIdProblem::LeadingDot),
        "{err:?}"
    );
    assert!(err.to_string().contains("must not start with '.'"), "{err}");
    assert!(!root.exists());
    assert!(!temp.path().join("outside").exists());
}

#[test]
fn prepare_returns_an_absolute_path_for_a_relative_root() {
    let temp = tempfile::tempdir().unwrap();
    // The temp directory, spelled relative to the working directory.
    let cwd = std::env::current_dir().unwrap();
    let mut relative = std::path::PathBuf::new();
    for _ in cwd.components().skip(1) {
        relative.push("..");
    }
    let relative = relative.join(temp.path().strip_prefix("/").unwrap());
    let made = prepare(&relative, "p").unwrap();
    assert!(made.is_absolute(), "{}", made.display());
    assert_eq!(
        std::fs::canonicalize(&made).unwrap(),
        std::fs::canonicalize(temp.path().join("p")).unwrap()
    );
}

#[test]
fn a_directory_that_cannot_be_made_keeps_the_io_error_as_its_source() {
    let temp = tempfile::tempdir().unwrap();
    // A file where the root should be: the directory cannot be created under it.
    let root = temp.path().join("file");
    std::fs::write(&root, b"x").unwrap();
    let err = prepare(&root, "p").unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("cannot create {}", root.join("p").display())
    );
    crate::error_text::io_source(&err);
}
