use super::ExecutableId;

#[test]
fn a_file_rewritten_or_replaced_at_the_same_path_has_a_new_id() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("runner");
    std::fs::write(&path, b"#!/bin/sh\nexit 0\n").unwrap();
    let first = ExecutableId::of(&path).unwrap();
    assert_eq!(ExecutableId::of(&path), Some(first), "unchanged: same id");
    // Replaced by a rename, as a build or `cp` to a temporary name and `mv` does.
    let next = dir.path().join("runner.new");
    std::fs::write(&next, b"#!/bin/sh\nexit 0\n").unwrap();
    std::fs::rename(&next, &path).unwrap();
    let replaced = ExecutableId::of(&path).unwrap();
    assert_ne!(replaced, first);
    // Rewritten in place with other contents (same inode).
    std::fs::write(&path, b"#!/bin/sh\nexit 1 # longer\n").unwrap();
    assert_ne!(ExecutableId::of(&path).unwrap(), replaced);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(ExecutableId::of(&path), None);
}
