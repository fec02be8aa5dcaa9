use serde_json::json;

use super::*;

fn declared(entries: serde_json::Value) -> DeclaredDependencies {
    DeclaredDependencies::from_manifest(&json!({ "dependencies": entries }))
}

fn dep(name: &str, spec: &str) -> serde_json::Value {
    json!({"type": "python_package", "name": name, "version_spec": spec})
}

fn environment() -> InstalledSet {
    let mut installed = InstalledSet::new();
    installed.insert(
        "pydantic".into(),
        Installed {
            version: "2.14.4".into(),
            owner: Owner::Pinned(PinnedSet::Runner),
        },
    );
    installed.insert(
        "httpx".into(),
        Installed {
            version: "0.29.0".into(),
            owner: Owner::Pinned(PinnedSet::Baseline),
        },
    );
    installed.insert(
        "cowsay".into(),
        Installed {
            version: "6.1".into(),
            owner: Owner::Plugin {
                id: "first.plugin".into(),
                requires: vec!["cowsay==6.1".into(), "other>=1".into()],
            },
        },
    );
    installed
}

#[test]
fn what_is_installed_at_an_accepted_version_is_not_installed_again() {
    let decision = decide(
        "p",
        &declared(json!([dep("httpx", ">=0.27"), dep("pydantic", ">=2")])),
        &environment(),
    );
    assert_eq!(decision, Decision::Satisfied);
}

#[test]
fn what_is_missing_is_installed() {
    let Decision::Install(list) = decide(
        "p",
        &declared(json!([dep("httpx", ">=0.27"), dep("tinydb", "==4.8.0")])),
        &environment(),
    ) else {
        panic!("expected an install");
    };
    assert_eq!(
        list.iter().map(ToString::to_string).collect::<Vec<_>>(),
        ["tinydb==4.8.0"]
    );
}

#[test]
fn a_requirement_against_the_runners_pydantic_is_refused_naming_both() {
    let Decision::Refused(reason) = decide(
        "p",
        &declared(json!([dep("pydantic", "<2")])),
        &environment(),
    ) else {
        panic!("expected a refusal");
    };
    assert!(reason.contains("pydantic<2"), "{reason}");
    assert!(reason.contains("pydantic 2.14.4"), "{reason}");
    assert!(reason.contains("MaiBot's runner"), "{reason}");
}

#[test]
fn a_requirement_against_another_plugins_package_names_that_plugin_and_its_requirement() {
    let Decision::Refused(reason) = decide(
        "second.plugin",
        &declared(json!([dep("cowsay", "==6.0")])),
        &environment(),
    ) else {
        panic!("expected a refusal");
    };
    assert!(reason.contains("cowsay==6.0"), "{reason}");
    assert!(reason.contains("plugin first.plugin"), "{reason}");
    assert!(reason.contains("needs cowsay==6.1"), "{reason}");
    assert!(!reason.contains("other>=1"), "{reason}");
}

#[test]
fn a_plugin_may_change_what_its_own_install_added() {
    let decision = decide(
        "first.plugin",
        &declared(json!([dep("cowsay", "==6.0")])),
        &environment(),
    );
    assert!(
        matches!(decision, Decision::Install(ref l) if l.len() == 1),
        "{decision:?}"
    );
    let pins = constraints(&environment(), "first.plugin");
    assert_eq!(pins, ["httpx==0.29.0", "pydantic==2.14.4"]);
    assert_eq!(constraints(&environment(), "else").len(), 3);
}

#[test]
fn extras_are_installed_even_when_the_package_is_there() {
    let decision = decide(
        "p",
        &declared(json!(["httpx[socks]>=0.27"])),
        &environment(),
    );
    assert!(
        matches!(decision, Decision::Install(ref l) if l[0].to_string() == "httpx[socks]>=0.27")
    );
}

#[test]
fn declaration_problems_refuse_the_plugin_with_them() {
    let decision = decide(
        "p",
        &declared(json!([dep("httpx", ">=>1")])),
        &environment(),
    );
    assert!(
        matches!(decision, Decision::Refused(ref r) if r.contains(">=>1")),
        "{decision:?}"
    );
}

#[test]
fn no_declared_dependency_is_satisfied() {
    assert_eq!(
        decide("p", &declared(json!([])), &environment()),
        Decision::Satisfied
    );
}
