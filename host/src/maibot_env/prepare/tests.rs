use serde_json::json;

use super::*;
use crate::maibot_env::declared::DeclaredDependencies;
use crate::maibot_env::observer::Silent;
use crate::maibot_env::pins::PinnedSet;
use crate::maibot_env::settings::EnvSettings;
use crate::maibot_env::settings::{InstallerChoice, PythonEnvConfig};
use crate::maibot_env::stamp::{BaseStamp, PluginStamp};

fn declared(entries: serde_json::Value) -> DeclaredDependencies {
    DeclaredDependencies::from_manifest(&json!({ "dependencies": entries }))
}

fn target(venv: &Path, plugins: Vec<(&str, DeclaredDependencies)>) -> EnvTarget {
    EnvTarget {
        runner: "mb".into(),
        settings: EnvSettings {
            location: EnvLocation::Managed {
                venv: venv.to_path_buf(),
            },
            base_python: None,
            install_dependencies: true,
            auto_prepare: true,
            index_url: None,
            installer: InstallerChoice::Auto,
        },
        plugins: plugins
            .into_iter()
            .map(|(id, d)| (id.to_owned(), d))
            .collect(),
    }
}

/// A venv whose stamp says today's base is installed (its interpreter a plain file).
async fn prepared_venv(dir: &Path, plugins: &[(&str, Vec<&str>, PluginOutcome)]) -> PathBuf {
    let venv = dir.join("venv");
    std::fs::create_dir_all(venv.join("bin")).unwrap();
    std::fs::write(venv.join("bin/python"), "").unwrap();
    let lines = |set: PinnedSet| set.pins().into_iter().map(|p| p.line).collect();
    let mut stamp = Stamp::new();
    stamp.base = Some(BaseStamp {
        python: "/usr/bin/python3.12".into(),
        python_version: "3.12.1".into(),
        installer: "uv".into(),
        runner: lines(PinnedSet::Runner),
        baseline: lines(PinnedSet::Baseline),
    });
    for (id, requires, outcome) in plugins {
        stamp.plugins.insert(
            (*id).into(),
            PluginStamp {
                requires: requires.iter().map(|r| (*r).to_owned()).collect(),
                outcome: outcome.clone(),
            },
        );
    }
    stamp.write(&venv).await.unwrap();
    venv
}

fn installed() -> PluginOutcome {
    PluginOutcome::Installed {
        added: [("cowsay".to_owned(), "6.1".to_owned())].into(),
    }
}

#[tokio::test]
async fn a_stamp_that_matches_needs_nothing_and_keeps_its_refusals() {
    let dir = tempfile::tempdir().unwrap();
    let venv = prepared_venv(
        dir.path(),
        &[
            ("a", vec!["cowsay==6.1"], installed()),
            (
                "b",
                vec!["pydantic<2"],
                PluginOutcome::Refused {
                    reason: "dependency conflict: pydantic".into(),
                },
            ),
        ],
    )
    .await;
    let target = target(
        &venv,
        vec![
            ("a", declared(json!(["cowsay==6.1"]))),
            ("b", declared(json!(["pydantic<2"]))),
            ("c", declared(json!([]))),
        ],
    );
    for mode in [Mode::Install, Mode::CheckOnly] {
        let prepared = prepare(&target, mode, &Silent).await.unwrap();
        assert!(prepared.done.is_empty(), "{prepared:?}");
        assert_eq!(prepared.python, venv.join("bin/python"));
        assert_eq!(
            prepared.blocked,
            [("b".to_owned(), "dependency conflict: pydantic".to_owned())].into()
        );
    }
}

#[tokio::test]
async fn checked_only_a_missing_environment_says_which_command_prepares_it() {
    let dir = tempfile::tempdir().unwrap();
    let target = target(&dir.path().join("venv"), vec![]);
    let err = prepare(&target, Mode::CheckOnly, &Silent)
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, PrepareError::NotPrepared { .. }), "{text}");
    assert!(text.contains("`maitool prepare mb`"), "{text}");
    assert!(!dir.path().join("venv").exists(), "a check changes nothing");
}

#[tokio::test]
async fn checked_only_an_environment_built_from_other_pins_is_not_prepared() {
    let dir = tempfile::tempdir().unwrap();
    let venv = prepared_venv(dir.path(), &[]).await;
    let mut stamp = Stamp::read(&venv).await;
    stamp.base.as_mut().unwrap().runner = vec!["maibot==1.0.0".into()];
    stamp.write(&venv).await.unwrap();
    let err = prepare(&target(&venv, vec![]), Mode::CheckOnly, &Silent)
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("pinned packages of this maitool"),
        "{err}"
    );
}

#[tokio::test]
async fn checked_only_a_new_or_changed_plugin_is_blocked_with_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let venv = prepared_venv(dir.path(), &[("a", vec!["cowsay==6.1"], installed())]).await;
    let target = target(
        &venv,
        vec![
            ("a", declared(json!(["cowsay==6.0"]))),
            ("new", declared(json!(["tinydb==4.8.0"]))),
        ],
    );
    let prepared = prepare(&target, Mode::CheckOnly, &Silent).await.unwrap();
    assert_eq!(prepared.blocked.len(), 2, "{prepared:?}");
    assert!(prepared.blocked["a"].contains("cowsay==6.0"));
    assert!(prepared.blocked["new"].contains("tinydb==4.8.0"));
    assert!(prepared.blocked["new"].contains("`maitool prepare mb`"));
}

#[tokio::test]
async fn with_installs_off_plugins_are_neither_installed_nor_blocked() {
    let dir = tempfile::tempdir().unwrap();
    let venv = prepared_venv(dir.path(), &[]).await;
    let mut target = target(&venv, vec![("new", declared(json!(["tinydb==4.8.0"])))]);
    target.settings.install_dependencies = false;
    let prepared = prepare(&target, Mode::CheckOnly, &Silent).await.unwrap();
    assert!(prepared.blocked.is_empty(), "{prepared:?}");
    let _ = PythonEnvConfig::default();
}

#[tokio::test]
async fn an_interpreter_of_the_operators_that_is_no_venv_is_used_as_it_is() {
    let mut target = target(
        Path::new("/unused"),
        vec![("a", declared(json!(["cowsay==6.1"])))],
    );
    target.settings.location = EnvLocation::Own {
        python: "/usr/bin/python3".into(),
    };
    let prepared = prepare(&target, Mode::Install, &Silent).await.unwrap();
    assert_eq!(prepared.python, Path::new("/usr/bin/python3"));
    assert!(prepared.blocked.is_empty() && prepared.done.is_empty());
}
