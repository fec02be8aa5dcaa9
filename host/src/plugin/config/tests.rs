use std::path::PathBuf;

use super::{PluginSettings, ResolvedRunner, check_announced_plugin_id};

fn runner(name: &str, plugins: &[&str]) -> ResolvedRunner {
    ResolvedRunner {
        plugins: plugins
            .iter()
            .map(|id| ((*id).to_owned(), PluginSettings::default()))
            .collect(),
        ..ResolvedRunner::maitool(name, PathBuf::from("/bin/true"))
    }
}

#[test]
fn an_announced_id_follows_the_rules_of_configured_ids() {
    let runners = [runner("a", &["acme.x"]), runner("b", &["acme.y"])];
    assert_eq!(check_announced_plugin_id(&runners, "a", "acme.x"), Ok(()));
    assert_eq!(
        check_announced_plugin_id(&runners, "a", "acme.unconfigured"),
        Ok(())
    );
    assert_eq!(
        check_announced_plugin_id(&runners, "a", "acme.y")
            .unwrap_err()
            .to_string(),
        "plugin id \"acme.y\" is configured for runner \"b\", not \"a\""
    );
    assert_eq!(
        check_announced_plugin_id(&runners, "a", "../x")
            .unwrap_err()
            .to_string(),
        "plugin id \"../x\" must not start with '.': it names the plugin's data directory"
    );
    assert!(check_announced_plugin_id(&runners, "a", "").is_err());
    assert!(check_announced_plugin_id(&runners, "a", "a/b").is_err());
}

#[test]
fn a_runner_error_names_the_key_and_keeps_the_cause_typed() {
    let temp = tempfile::tempdir().unwrap();
    let config = super::RunnerConfig {
        plugin_dir: Some("missing".into()),
        ..super::RunnerConfig::executable("dice", "/bin/true")
    };
    let config = super::RunnerConfig {
        executable: None,
        ..config
    };
    let err = config
        .resolve(temp.path(), &temp.path().join("data"))
        .unwrap_err();
    assert_eq!(err.key, "runners.dice.plugin_dir");
    let super::RunnerProblem::Read { path, error } = &err.problem else {
        panic!("{err:?}");
    };
    assert_eq!(
        path,
        &temp.path().join("missing").join("maitool-plugin.toml")
    );
    assert_eq!(error.kind(), std::io::ErrorKind::NotFound);
    assert_eq!(
        err.to_string(),
        format!(
            "runners.dice.plugin_dir: cannot read {}: {error}",
            path.display()
        )
    );
    // One self-contained line: no source to print the cause a second time.
    assert!(std::error::Error::source(&err).is_none());
}

#[test]
fn a_problem_about_the_key_itself_reads_as_one_sentence() {
    let config = super::RunnerConfig {
        python: Some("python3".into()),
        ..super::RunnerConfig::executable("dice", "/bin/true")
    };
    let err = config
        .resolve(std::path::Path::new("/"), std::path::Path::new("/data"))
        .unwrap_err();
    assert!(
        matches!(err.problem, super::RunnerProblem::MaibotOnly),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "runners.dice.python is for MaiBot runners: add `kind = \"maibot\"`"
    );
}
