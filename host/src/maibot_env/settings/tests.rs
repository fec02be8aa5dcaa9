use super::*;

#[test]
fn without_python_the_environment_is_managed_under_the_data_dir() {
    let settings = EnvSettings::resolve(
        &PythonEnvConfig::default(),
        None,
        Path::new("/etc/maitool"),
        Path::new("/var/lib/maitool"),
        "maibot",
    )
    .unwrap();
    assert_eq!(
        settings.location,
        EnvLocation::Managed {
            venv: "/var/lib/maitool/maibot-venv/maibot".into()
        }
    );
    assert_eq!(
        settings.python(),
        Path::new("/var/lib/maitool/maibot-venv/maibot/bin/python")
    );
    assert!(settings.install_dependencies && settings.auto_prepare);
    assert_eq!(settings.installer, InstallerChoice::Auto);
}

#[test]
fn keys_resolve_against_the_configuration_and_parse_from_toml() {
    let config: PythonEnvConfig = toml::from_str(
        r#"
path = "venvs/mb"
base_python = "py/python3.13"
install_dependencies = false
auto_prepare = false
index_url = "https://mirrors.example/simple"
installer = "pip"
"#,
    )
    .unwrap();
    let settings =
        EnvSettings::resolve(&config, None, Path::new("/etc/m"), Path::new("/d"), "mb").unwrap();
    assert_eq!(
        settings.location,
        EnvLocation::Managed {
            venv: "/etc/m/venvs/mb".into()
        }
    );
    assert_eq!(
        settings.base_python.as_deref(),
        Some(Path::new("/etc/m/py/python3.13"))
    );
    assert!(!settings.install_dependencies && !settings.auto_prepare);
    assert_eq!(settings.installer, InstallerChoice::Pip);
    let err = toml::from_str::<PythonEnvConfig>("installer = \"conda\"").unwrap_err();
    assert!(err.to_string().contains("conda"), "{err}");
    let err = toml::from_str::<PythonEnvConfig>("venv = \"x\"").unwrap_err();
    assert!(err.to_string().contains("venv"), "{err}");
}

#[test]
fn the_operators_python_is_kept_and_managed_keys_next_to_it_are_refused() {
    let own = EnvSettings::resolve(
        &PythonEnvConfig::default(),
        Some("python3.12".into()),
        Path::new("/c"),
        Path::new("/d"),
        "mb",
    )
    .unwrap();
    assert_eq!(
        own.location,
        EnvLocation::Own {
            python: "python3.12".into()
        }
    );
    assert_eq!(own.python(), Path::new("python3.12"));
    let config = PythonEnvConfig {
        path: Some("v".into()),
        ..PythonEnvConfig::default()
    };
    let (key, err) = EnvSettings::resolve(
        &config,
        Some("python3".into()),
        Path::new("/c"),
        Path::new("/d"),
        "mb",
    )
    .unwrap_err();
    assert_eq!(key, "path");
    assert_eq!(err, EnvConfigError::ManagedOnly);
}

#[test]
fn an_index_url_must_be_one() {
    for bad in ["pypi.org/simple", "ftp://x/simple", "https://x/sim ple"] {
        let config = PythonEnvConfig {
            index_url: Some(bad.into()),
            ..PythonEnvConfig::default()
        };
        let (key, err) =
            EnvSettings::resolve(&config, None, Path::new("/c"), Path::new("/d"), "mb")
                .unwrap_err();
        assert_eq!(key, "index_url");
        assert!(err.to_string().contains(bad), "{err}");
    }
}
