use std::path::Path;

use super::{ConfigError, EnvError, HostConfig, expand_env};

fn parse(text: &str) -> Result<HostConfig, ConfigError> {
    HostConfig::from_toml(text, Path::new("maitool.toml"))
}

#[test]
fn an_empty_file_is_the_defaults() {
    let config = parse("").unwrap();
    assert_eq!(config, HostConfig::default());
}

#[test]
fn unknown_keys_are_errors_that_name_the_key() {
    let err = parse("[plugin_runtime]\nmax_restart = 3\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("unknown field `max_restart`"), "{err}");
    let err = parse("[[runners]]\nname = \"a\"\nexecutable = \"x\"\nenv = 3\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("env"), "{err}");
    let err = parse("[host]\nsocket = \"x\"\n").unwrap_err().to_string();
    assert!(err.contains("unknown field `socket`"), "{err}");
}

#[test]
fn bad_values_name_the_key() {
    let err = parse("[plugin_runtime]\nmax_restarts = -1\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("max_restarts"), "{err}");
    let config = parse("[plugin_runtime]\nhandshake_timeout_ms = 0\n").unwrap();
    let err = config
        .resolve(None, Path::new("/tmp"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("plugin_runtime.handshake_timeout_ms must be greater than 0"),
        "{err}"
    );
}

#[test]
fn runners_need_an_existing_executable_and_unique_names() {
    let missing =
        parse("[[runners]]\nname = \"ghost\"\nexecutable = \"does/not/exist\"\n").unwrap();
    let err = missing
        .resolve(None, Path::new("/tmp"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("runners.ghost: executable /tmp/does/not/exist does not exist"),
        "{err}"
    );
    let twice = parse("[[runners]]\nname = \"a\"\nexecutable = \"/bin/true\"\n[[runners]]\nname = \"a\"\nexecutable = \"/bin/true\"\n").unwrap();
    let err = twice
        .resolve(None, Path::new("/tmp"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("runners[1].name: duplicate runner name \"a\""),
        "{err}"
    );
    let neither = parse("[[runners]]\nname = \"n\"\n").unwrap();
    let err = neither
        .resolve(None, Path::new("/tmp"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("runners.n: needs `executable` or `plugin_dir`"),
        "{err}"
    );
}

#[test]
fn a_plugin_id_configured_for_two_runners_is_an_error_naming_both() {
    let text = "[[runners]]\nname = \"first\"\nexecutable = \"/bin/true\"\n[runners.plugins.\"acme.x\"]\n\
                [[runners]]\nname = \"other\"\nexecutable = \"/bin/true\"\n[runners.plugins.\"acme.y\"]\n\
                [[runners]]\nname = \"second\"\nexecutable = \"/bin/true\"\n[runners.plugins.\"acme.x\"]\nenabled = false\n";
    let err = parse(text)
        .unwrap()
        .resolve(None, Path::new("/tmp"))
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "<defaults>: runners.second.plugins: plugin id \"acme.x\" is also configured for runner \"first\"; a plugin id belongs to one runner"
    );
    // A disabled runner starts nothing, so it claims no id.
    let disabled = text.replace("name = \"second\"", "name = \"second\"\nenabled = false");
    parse(&disabled)
        .unwrap()
        .resolve(None, Path::new("/tmp"))
        .expect("a disabled runner's plugins do not clash");
}

#[test]
fn plugin_folders_with_a_manifest_resolve_executable_grants_and_config() {
    let dir = tempfile::tempdir().unwrap();
    let plugin = dir.path().join("weather");
    std::fs::create_dir_all(&plugin).unwrap();
    std::fs::write(
        plugin.join("maitool-plugin.toml"),
        "id = \"acme.weather\"\nversion = \"1.2.0\"\nexecutable = \"/bin/true\"\ncapabilities = [\"send.text\"]\nconfig_file = \"config.toml\"\n",
    )
    .unwrap();
    std::fs::write(
        plugin.join("config.toml"),
        "city = \"Oslo\"\nunits = \"metric\"\n",
    )
    .unwrap();
    let text = "[[runners]]\nname = \"weather\"\nplugin_dir = \"weather\"\n[runners.plugins.\"acme.weather\".config]\nunits = \"imperial\"\n";
    std::fs::write(dir.path().join("maitool.toml"), text).unwrap();
    let loaded = HostConfig::load(&dir.path().join("maitool.toml")).unwrap();
    let runner = &loaded.runners[0];
    assert_eq!(runner.executable, Path::new("/bin/true"));
    let settings = &runner.plugins["acme.weather"];
    assert_eq!(settings.capabilities, vec!["send.text".to_owned()]);
    assert_eq!(settings.config["city"], "Oslo");
    assert_eq!(
        settings.config["units"], "imperial",
        "inline config overrides the file"
    );
}

#[test]
fn relative_paths_resolve_against_the_config_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("maitool.toml"),
        "[host]\ndata_dir = \"state\"\n",
    )
    .unwrap();
    let loaded = HostConfig::load(&dir.path().join("maitool.toml")).unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    assert_eq!(loaded.config.host.data_dir, base.join("state"));
    assert_eq!(
        loaded.config.host.control_socket,
        base.join(".maitool/control.sock")
    );
}

#[test]
fn environment_references_expand_with_defaults() {
    assert_eq!(
        expand_env("a ${MAITOOL_SURELY_UNSET:-target}/debug b").unwrap(),
        "a target/debug b"
    );
    assert_eq!(
        expand_env("cost $$5 and $HOME").unwrap(),
        "cost $5 and $HOME"
    );
    let home = std::env::var("HOME").unwrap();
    assert_eq!(expand_env("${HOME}/x").unwrap(), format!("{home}/x"));
    let err = expand_env("${MAITOOL_SURELY_UNSET}").unwrap_err();
    assert_eq!(
        err,
        EnvError::Unset {
            name: "MAITOOL_SURELY_UNSET".to_owned()
        }
    );
    assert!(
        err.to_string().contains("MAITOOL_SURELY_UNSET is not set"),
        "{err}"
    );
    assert!(
        expand_env("${OPEN")
            .unwrap_err()
            .to_string()
            .contains("unterminated")
    );
}

/// Found while writing the `config` fuzz target (its seed `unterminated_reference_multibyte`
/// replays it): the excerpt of an unterminated `${` was cut at byte 40, which panicked when
/// that byte fell inside a multi-byte character, so `maitool serve` crashed on such a file.
#[test]
fn unterminated_reference_before_multibyte_text_is_an_error() {
    let text = format!("${{{}é and more", "a".repeat(37));
    let err = expand_env(&text).unwrap_err().to_string();
    assert!(err.contains("unterminated ${"), "{err}");
    assert!(err.contains(&"a".repeat(37)), "{err}");
    let file = format!("[host]\ndata_dir = \"{text}\"\n");
    let err = HostConfig::parse(&file, Path::new("maitool.toml"))
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("maitool.toml: unterminated ${"), "{err}");
}

#[test]
fn bot_and_llm_sections_are_read_and_checked() {
    let config = parse(
        "[bot]\nnickname = \"Mai\"\nalias_names = [\"m\"]\n[bot.extra.personality]\npersonality = \"calm\"\n\
         [llm]\nbase_url = \"http://127.0.0.1:8000/v1\"\nmodels = [\"small\"]\napi_key_env = \"KEY\"\n",
    )
    .unwrap();
    assert_eq!(config.bot.lookup("bot.nickname"), Some("Mai".into()));
    assert_eq!(
        config.bot.lookup("personality.personality"),
        Some("calm".into())
    );
    let llm = config.llm.clone().unwrap();
    assert_eq!(
        (llm.models.as_slice(), llm.timeout_ms),
        (&["small".to_owned()][..], 60_000)
    );
    config.resolve(None, Path::new("/tmp")).unwrap();

    let err = parse("[bot]\nnick = \"x\"\n").unwrap_err().to_string();
    assert!(err.contains("unknown field `nick`"), "{err}");
    let no_models = parse("[llm]\nbase_url = \"https://api.example/v1\"\n").unwrap();
    let err = no_models
        .resolve(None, Path::new("/tmp"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("llm.models"), "{err}");
    let bad_url = parse("[llm]\nbase_url = \"api.example\"\nmodels = [\"m\"]\n").unwrap();
    let err = bad_url
        .resolve(None, Path::new("/tmp"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("llm.base_url"), "{err}");
}

/// The OS's reason is the source, not also in the message, so that anyhow's `{:#}` (the CLI)
/// shows it once.
#[test]
fn an_unreadable_file_names_it_and_keeps_the_os_error_as_source() {
    let err = HostConfig::load(Path::new("/nonexistent/maitool.toml")).unwrap_err();
    assert_eq!(err.to_string(), "cannot read /nonexistent/maitool.toml");
    let io = crate::error_text::io_source(&err);
    assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
    assert_eq!(
        crate::error_text::chain(&err),
        format!("cannot read /nonexistent/maitool.toml: {io}")
    );
}

/// An unexpandable reference is part of the file's line, typed, and not repeated as a source.
#[test]
fn an_unset_variable_is_a_typed_env_error_naming_the_file() {
    let err = HostConfig::parse(
        "[host]\ndata_dir = \"${MAITOOL_SURELY_UNSET}\"\n",
        Path::new("m.toml"),
    )
    .unwrap_err();
    match &err {
        ConfigError::Env { error, .. } => assert_eq!(
            *error,
            EnvError::Unset {
                name: "MAITOOL_SURELY_UNSET".to_owned()
            }
        ),
        other => panic!("{other:?}"),
    }
    assert!(std::error::Error::source(&err).is_none());
    assert_eq!(
        err.to_string(),
        "m.toml: environment variable MAITOOL_SURELY_UNSET is not set (use ${MAITOOL_SURELY_UNSET:-default})"
    );
}

fn store_error(text: &str) -> String {
    parse(text)
        .unwrap()
        .resolve(None, Path::new("/tmp"))
        .unwrap_err()
        .to_string()
}

#[test]
fn the_store_is_embedded_unless_postgres_is_chosen_with_a_url() {
    let config = parse("").unwrap();
    assert_eq!(config.store.postgres_url().unwrap(), None);
    let config =
        parse("[store]\nbackend = \"postgres\"\nurl = \"host=/run/postgresql dbname=m\"\n")
            .unwrap();
    assert_eq!(
        config.store.postgres_url().unwrap().as_deref(),
        Some("host=/run/postgresql dbname=m")
    );
    let err = parse("[store]\nbackend = \"mysql\"\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("unknown variant `mysql`"), "{err}");
}

#[test]
fn a_bad_or_missing_store_url_is_a_config_error_naming_the_key() {
    let err = store_error("[store]\nbackend = \"postgres\"\n");
    assert!(err.contains("needs `url` or `url_env`"), "{err}");
    let err =
        store_error("[store]\nbackend = \"postgres\"\nurl = \"postgresql://h:notaport/db\"\n");
    assert!(
        err.contains("store.url: invalid PostgreSQL connection string"),
        "{err}"
    );
    let err = store_error(
        "[store]\nbackend = \"postgres\"\nurl = \"host=/x\"\nurl_env = \"MAITOOL_PG\"\n",
    );
    assert!(err.contains("one of `url` and `url_env`"), "{err}");
    let err = store_error(
        "[store]\nbackend = \"postgres\"\nurl_env = \"MAITOOL_TEST_SURELY_UNSET_PG_URL\"\n",
    );
    assert!(
        err.contains("environment variable MAITOOL_TEST_SURELY_UNSET_PG_URL is not set"),
        "{err}"
    );
    let err = store_error("[store]\nurl = \"host=/x\"\n");
    assert!(
        err.contains("`url` is set but backend is \"sqlite\""),
        "{err}"
    );
    let err =
        store_error("[store]\nbackend = \"postgres\"\nurl = \"host=/x\"\nmax_connections = 0\n");
    assert!(err.contains("max_connections must be at least 1"), "{err}");
}

#[test]
fn cluster_timings_out_of_order_are_refused_with_the_keys_named() {
    let config = parse("").unwrap();
    assert_eq!(config.cluster.heartbeat_ms, 5_000);
    assert!(config.cluster.validate().is_ok());
    for (text, expected) in [
        (
            "[cluster]\nheartbeat_ms = 0\n",
            "cluster.heartbeat_ms must be at least 1",
        ),
        (
            "[cluster]\nheartbeat_ms = 1000\nstale_after_ms = 1500\n",
            "cluster.stale_after_ms (1500) must be at least twice cluster.heartbeat_ms (1000)",
        ),
        (
            "[cluster]\nstale_after_ms = 20000\nforget_after_ms = 10000\n",
            "cluster.forget_after_ms (10000) must be at least cluster.stale_after_ms (20000)",
        ),
    ] {
        let err = store_error(text);
        assert!(err.contains(expected), "{text}: {err}");
    }
    let err = parse("[cluster]\nheartbeat = 5\n").unwrap_err().to_string();
    assert!(err.contains("unknown field `heartbeat`"), "{err}");
}
