use serde_json::json;

use super::*;

fn texts(manifest: Value) -> (Vec<String>, Vec<String>) {
    let declared = DeclaredDependencies::from_manifest(&manifest);
    (declared.texts(), declared.problems)
}

#[test]
fn the_sdk_form_is_read_and_plugin_dependencies_are_left_out() {
    let (requirements, problems) = texts(json!({"dependencies": [
        {"type": "python_package", "name": "aiohttp", "version_spec": ">=3.8.0"},
        {"type": "plugin", "id": "maibot-team.napcat-adapter", "version_spec": ">=0.1.0"},
        {"type": "python_package", "name": "Pillow", "version_spec": ""},
    ]}));
    assert_eq!(requirements, ["aiohttp>=3.8.0", "Pillow"]);
    assert!(problems.is_empty(), "{problems:?}");
}

#[test]
fn the_malformed_shapes_of_market_manifests_are_read_for_what_they_mean() {
    // Seen in the market index: no `type`, `version` for `version_spec`, a `reason`.
    let (requirements, problems) = texts(json!({"dependencies": [
        {"name": "aiohttp", "version": ">=3.8.0", "reason": "sends requests"},
        {"name": "numpy", "version": "1.20.0"},
        "httpx[socks]>=0.27",
        {"id": "other.plugin"},
    ]}));
    assert_eq!(
        requirements,
        ["aiohttp>=3.8.0", "numpy>=1.20.0", "httpx[socks]>=0.27"]
    );
    assert!(problems.is_empty(), "{problems:?}");
    // And the grouped form, whose optional packages are not installed.
    let (requirements, problems) = texts(json!({"dependencies": {
        "required": ["numpy>=1.20.0", "networkx>=3.0.0"],
        "optional": ["faiss-cpu"],
    }}));
    assert_eq!(requirements, ["numpy>=1.20.0", "networkx>=3.0.0"]);
    assert!(problems.is_empty());
}

#[test]
fn entries_that_cannot_be_read_become_problems_naming_them() {
    let (requirements, problems) = texts(json!({"dependencies": [
        {"type": "python_package", "name": "httpx", "version_spec": ">=>1"},
        {"type": "python_package", "version_spec": ">=1"},
        {"type": "python_package", "name": "bad name"},
        42,
        {"type": "python_package", "name": "cowsay", "version_spec": "==6.1"},
        {"type": "python_package", "name": "cowsay", "version_spec": "==6.0"},
        {"type": "python_package", "name": "x", "version_spec": ">=2,<1"},
    ]}));
    assert_eq!(requirements, ["cowsay==6.1"]);
    assert_eq!(problems.len(), 6, "{problems:?}");
    assert!(problems[0].contains(">=>1") && problems[0].contains("httpx"));
    assert!(problems[1].contains("without a `name`"));
    assert!(problems[2].contains("bad name"));
    assert!(problems[3].contains("42"));
    assert!(problems[4].contains("cowsay==6.1") && problems[4].contains("cowsay==6.0"));
    assert!(
        problems[5].starts_with("no version satisfies its dependency x"),
        "{problems:?}"
    );
    let (_, problems) = texts(json!({"dependencies": "numpy"}));
    assert_eq!(problems.len(), 1);
}

#[test]
fn no_dependencies_is_empty() {
    assert!(DeclaredDependencies::from_manifest(&json!({"id": "a"})).is_empty());
    assert!(DeclaredDependencies::from_manifest(&json!({"dependencies": []})).is_empty());
    assert!(DeclaredDependencies::from_manifest(&json!({"dependencies": null})).is_empty());
}
