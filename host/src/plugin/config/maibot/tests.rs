use std::path::Path;

use serde_json::json;

use super::*;
use crate::plugin::config::RunnerKind;

fn plugin_folder(root: &Path, folder: &str, id: &str, config: Option<&str>) {
    let dir = root.join(folder);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("_manifest.json"), json!({"id": id}).to_string()).unwrap();
    std::fs::write(dir.join("plugin.py"), "").unwrap();
    if let Some(config) = config {
        std::fs::write(dir.join("config.toml"), config).unwrap();
    }
}

fn maibot_runner(toml_text: &str) -> RunnerConfig {
    toml::from_str(toml_text).unwrap()
}

#[test]
fn plugins_are_found_by_manifest_id_and_reserved_or_hidden_folders_are_skipped() {
    let root = tempfile::tempdir().unwrap();
    let plugins = root.path().join("plugins");
    plugin_folder(&plugins, "b_folder", "acme.beta", None);
    plugin_folder(&plugins, "a_folder", "acme.alpha", None);
    plugin_folder(&plugins, ".hidden", "acme.hidden", None);
    plugin_folder(&plugins, "data", "acme.data", None);
    plugin_folder(&plugins, "__pycache__", "acme.cache", None);
    std::fs::create_dir_all(plugins.join("no_manifest")).unwrap();
    std::fs::create_dir_all(plugins.join("broken")).unwrap();
    std::fs::write(plugins.join("broken/_manifest.json"), "{not json").unwrap();

    let config = maibot_runner(
        r#"
name = "mb"
kind = "maibot"
python = "python3.12"
plugin_dirs = ["plugins"]
"#,
    );
    assert_eq!(config.kind, RunnerKind::Maibot);
    let resolved = config.resolve(root.path(), Path::new("/data")).unwrap();
    assert_eq!(
        resolved.executable,
        Path::new("python3.12"),
        "a bare name is left for PATH"
    );
    assert_eq!(
        resolved.args,
        ["-m", "src.plugin_runtime.runner.runner_main"]
    );
    let ids: Vec<&String> = resolved.plugins.keys().collect();
    assert_eq!(ids, ["acme.alpha", "acme.beta"]);
    let maibot = resolved.maibot.unwrap();
    assert_eq!(maibot.folders["acme.alpha"], plugins.join("a_folder"));
    assert_eq!(maibot.instance_dir, Path::new("/data/maibot/mb"));
    assert_eq!(maibot.working_dir(), Path::new("/data/maibot/mb"));
}

#[test]
fn operator_overrides_merge_into_the_plugins_config_toml_table_by_table() {
    let root = tempfile::tempdir().unwrap();
    plugin_folder(
        &root.path().join("plugins"),
        "greeter",
        "acme.greeter",
        Some(
            "[plugin]\nenabled = true\nconfig_version = \"1.0.0\"\n\n[greeting]\nsalutation = \"Hello\"\npunctuation = \"!\"\n",
        ),
    );
    let config = maibot_runner(
        r#"
name = "mb"
kind = "maibot"
python = "venv/bin/python"
plugin_dirs = ["plugins"]
[plugins."acme.greeter"]
capabilities = ["send.text"]
config = { greeting = { salutation = "Howdy" } }
"#,
    );
    let resolved = config.resolve(root.path(), Path::new("/data")).unwrap();
    assert_eq!(resolved.executable, root.path().join("venv/bin/python"));
    let settings = &resolved.plugins["acme.greeter"];
    assert_eq!(settings.capabilities, ["send.text"]);
    assert_eq!(
        serde_json::Value::Object(settings.config.clone()),
        json!({
            "plugin": {"enabled": true, "config_version": "1.0.0"},
            "greeting": {"salutation": "Howdy", "punctuation": "!"}
        })
    );
    assert!(resolved.maibot.unwrap().overridden.contains("acme.greeter"));
}

#[test]
fn misconfigured_maibot_runners_are_refused_with_the_field_named() {
    let root = tempfile::tempdir().unwrap();
    plugin_folder(&root.path().join("plugins"), "one", "acme.one", None);
    let cases = [
        (
            "name = \"mb\"\nkind = \"maibot\"\nplugin_dirs = [\"plugins\"]\nexecutable = \"x\"",
            "runners.mb.executable does not apply to a MaiBot runner",
        ),
        (
            "name = \"mb\"\nkind = \"maibot\"",
            "runners.mb.plugin_dirs: a MaiBot runner needs",
        ),
        (
            "name = \"mb\"\nkind = \"maibot\"\nplugin_dirs = [\"missing\"]",
            "runners.mb.plugin_dirs: cannot read",
        ),
        (
            "name = \"mb\"\nkind = \"maibot\"\nplugin_dirs = [\"plugins\"]\n[plugins.\"acme.typo\"]\nenabled = false",
            "runners.mb.plugins.acme.typo: no plugin with this id in plugin_dirs (found: acme.one)",
        ),
        (
            "name = \"mb\"\nkind = \"maibot\"\nplugin_dirs = [\"plugins\"]\nmaibot_source = \"plugins\"",
            "runners.mb.maibot_source:",
        ),
        (
            "name = \"mb\"\nkind = \"maibot\"\nplugin_dirs = [\"plugins\"]\n[plugins.\"acme.one\"]\ncapabilities = [\"send\"]",
            "runners.mb.plugins.acme.one.capabilities: \"send\" is a capability family",
        ),
        (
            "name = \"mb\"\nexecutable = \"x\"\nplugin_dirs = [\"plugins\"]",
            "runners.mb.plugin_dirs is for MaiBot runners: add `kind = \"maibot\"`",
        ),
        (
            "name = \"mb\"\nkind = \"maibot\"\nplugin_dirs = [\"plugins\"]\n[plugins.\"acme.one\"]\ncapabilities = [\"send.video\"]",
            "runners.mb.plugins.acme.one.capabilities: \"send.video\" is not a capability maitool serves; the send family has send.text,",
        ),
        (
            "name = \"mb\"\nkind = \"maibot\"\nplugin_dirs = [\"plugins\"]\n[plugins.\"acme.one\"]\ncapabilities = [\"send_message\"]",
            "runners.mb.plugins.acme.one.capabilities: \"send_message\" is not a capability maitool serves; the send family has send.text,",
        ),
        (
            "name = \"mb\"\nexecutable = \"x\"\nforce_plugin_compatibility = true",
            "runners.mb.force_plugin_compatibility is for MaiBot runners",
        ),
        (
            "name = \"mb\"\nexecutable = \"x\"\ngrant_declared = true",
            "runners.mb.grant_declared is for MaiBot runners",
        ),
        (
            "name = \"mb\"\nexecutable = \"x\"\n[plugins.\"acme.one\"]\ngrant_declared = true",
            "runners.mb.plugins.acme.one.grant_declared is for MaiBot runners",
        ),
    ];
    for (text, expected) in cases {
        let err = maibot_runner(text)
            .resolve(root.path(), Path::new("/data"))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with(expected), "{text}\n=> {err}");
    }
}

#[test]
fn the_environment_is_what_maibots_supervisor_passes_with_disabled_plugins_blocked() {
    let launch = MaibotLaunch {
        plugin_dirs: vec!["/p/one".into(), "/p/two".into()],
        source: None,
        instance_dir: "/data/maibot/mb".into(),
        host_version: Some("1.3.15".into()),
        force_plugin_compatibility: false,
        folders: BTreeMap::new(),
        overridden: BTreeSet::new(),
        environment: EnvSettings::resolve(
            &Default::default(),
            None,
            Path::new("/c"),
            Path::new("/data"),
            "mb",
        )
        .unwrap(),
        dependencies: BTreeMap::new(),
    };
    let mut plugins = BTreeMap::new();
    plugins.insert("acme.on".to_owned(), PluginSettings::default());
    plugins.insert(
        "acme.off".to_owned(),
        PluginSettings {
            enabled: false,
            ..PluginSettings::default()
        },
    );
    let vars: BTreeMap<&str, String> = launch
        .environment(
            "mb",
            Path::new("/run/host.sock"),
            "tok",
            &plugins,
            &[(
                "acme.deps".to_owned(),
                "dependency conflict: pydantic<2".to_owned(),
            )]
            .into(),
        )
        .into_iter()
        .collect();
    assert_eq!(vars["MAIBOT_IPC_ADDRESS"], "/run/host.sock");
    assert_eq!(vars["MAIBOT_SESSION_TOKEN"], "tok");
    assert_eq!(vars["MAIBOT_PLUGIN_DIRS"], "/p/one:/p/two");
    assert_eq!(vars["MAIBOT_RUNNER_GROUP"], "mb");
    assert_eq!(vars["MAIBOT_INSTANCE_DIR"], "/data/maibot/mb");
    assert_eq!(vars["MAIBOT_HOST_VERSION"], "1.3.15");
    assert_eq!(vars["MAIBOT_EXTERNAL_PLUGIN_IDS"], "{}");
    assert_eq!(vars["MAIBOT_FORCE_PLUGIN_COMPATIBILITY"], "0");
    let blocked: serde_json::Value =
        serde_json::from_str(&vars["MAIBOT_BLOCKED_PLUGIN_REASONS"]).unwrap();
    assert_eq!(
        blocked,
        json!({"acme.off": DISABLED_REASON, "acme.deps": "dependency conflict: pydantic<2"})
    );
    assert!(!vars.contains_key("PYTHONPATH"));
}

#[test]
fn without_python_the_runner_runs_its_managed_environment_and_declared_packages_are_read() {
    let root = tempfile::tempdir().unwrap();
    let plugins = root.path().join("plugins");
    plugin_folder(&plugins, "plain", "acme.plain", None);
    let deps = plugins.join("deps");
    std::fs::create_dir_all(&deps).unwrap();
    std::fs::write(
        deps.join("_manifest.json"),
        json!({"id": "acme.deps", "dependencies": [
            {"type": "python_package", "name": "cowsay", "version_spec": "==6.1"},
            {"type": "plugin", "id": "acme.plain", "version_spec": ">=1"},
        ]})
        .to_string(),
    )
    .unwrap();
    let resolved = maibot_runner("name = \"mb\"\nkind = \"maibot\"\nplugin_dirs = [\"plugins\"]")
        .resolve(root.path(), Path::new("/data"))
        .unwrap();
    assert_eq!(
        resolved.executable,
        Path::new("/data/maibot-venv/mb/bin/python")
    );
    let maibot = resolved.maibot.unwrap();
    assert_eq!(
        maibot.environment.location,
        crate::maibot_env::EnvLocation::Managed {
            venv: "/data/maibot-venv/mb".into()
        }
    );
    assert_eq!(maibot.dependencies.len(), 1);
    assert_eq!(maibot.dependencies["acme.deps"].texts(), ["cowsay==6.1"]);
    // Disabled plugins are left out of what is prepared.
    let mut settings = resolved.plugins.clone();
    assert_eq!(maibot.env_target("mb", &settings).plugins.len(), 1);
    settings.get_mut("acme.deps").unwrap().enabled = false;
    assert!(maibot.env_target("mb", &settings).plugins.is_empty());
}

#[test]
fn python_env_keys_are_checked_and_named() {
    let root = tempfile::tempdir().unwrap();
    plugin_folder(&root.path().join("plugins"), "one", "acme.one", None);
    let cases = [
        (
            "name = \"mb\"\nkind = \"maibot\"\npython = \"python3.12\"\nplugin_dirs = [\"plugins\"]\n[python_env]\npath = \"v\"",
            "runners.mb.python_env.path has no use next to `python`",
        ),
        (
            "name = \"mb\"\nkind = \"maibot\"\nplugin_dirs = [\"plugins\"]\n[python_env]\nindex_url = \"pypi\"",
            "runners.mb.python_env.index_url: `pypi` is not an http",
        ),
        (
            "name = \"mb\"\nexecutable = \"x\"\n[python_env]\nauto_prepare = false",
            "runners.mb.python_env is for MaiBot runners",
        ),
    ];
    for (text, expected) in cases {
        let err = maibot_runner(text)
            .resolve(root.path(), Path::new("/data"))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with(expected), "{text}\n=> {err}");
    }
}

fn declaring_folder(root: &Path, folder: &str, id: &str, capabilities: serde_json::Value) {
    let dir = root.join(folder);
    std::fs::create_dir_all(&dir).unwrap();
    let manifest = json!({"id": id, "capabilities": capabilities});
    std::fs::write(dir.join("_manifest.json"), manifest.to_string()).unwrap();
    std::fs::write(dir.join("plugin.py"), "").unwrap();
}

#[test]
fn grant_declared_grants_the_served_names_of_each_manifest_per_runner_or_per_plugin() {
    let root = tempfile::tempdir().unwrap();
    let plugins = root.path().join("plugins");
    declaring_folder(
        &plugins,
        "a",
        "acme.a",
        json!([
            " send.text ",
            "llm.generate",
            "send.video",
            "send.text",
            "",
            7
        ]),
    );
    declaring_folder(&plugins, "b", "acme.b", json!(["send.text"]));
    declaring_folder(&plugins, "c", "acme.c", json!("not a list"));
    let config = maibot_runner(
        r#"
name = "mb"
kind = "maibot"
plugin_dirs = ["plugins"]
grant_declared = true
[plugins."acme.a"]
capabilities = ["kv.*"]
[plugins."acme.b"]
grant_declared = false
"#,
    );
    let resolved = config.resolve(root.path(), Path::new("/data")).unwrap();
    let a = &resolved.plugins["acme.a"];
    assert_eq!(a.declared, ["send.text", "llm.generate", "send.video"]);
    assert!(a.grants_declared());
    assert_eq!(a.grants(), ["kv.*", "send.text", "llm.generate"]);
    let b = &resolved.plugins["acme.b"];
    assert_eq!(b.declared, ["send.text"]);
    assert!(!b.grants_declared(), "the plugin's own false wins");
    assert!(b.grants().is_empty());
    let c = &resolved.plugins["acme.c"];
    assert!(c.declared.is_empty() && c.grants().is_empty());

    let off = maibot_runner("name = \"mb\"\nkind = \"maibot\"\nplugin_dirs = [\"plugins\"]");
    let resolved = off.resolve(root.path(), Path::new("/data")).unwrap();
    let a = &resolved.plugins["acme.a"];
    assert_eq!(a.declared.len(), 3, "declared is read either way");
    assert!(a.grants().is_empty(), "nothing granted unless opted in");
}

#[test]
fn force_plugin_compatibility_reaches_the_runner_and_a_change_is_another_launch() {
    let root = tempfile::tempdir().unwrap();
    plugin_folder(&root.path().join("plugins"), "one", "acme.one", None);
    let resolve = |text: &str| {
        maibot_runner(text)
            .resolve(root.path(), Path::new("/data"))
            .unwrap()
            .maibot
            .unwrap()
    };
    let forced = resolve(
        "name = \"mb\"\nkind = \"maibot\"\nplugin_dirs = [\"plugins\"]\nforce_plugin_compatibility = true",
    );
    let plain = resolve("name = \"mb\"\nkind = \"maibot\"\nplugin_dirs = [\"plugins\"]");
    assert!(forced.force_plugin_compatibility && !plain.force_plugin_compatibility);
    let vars: BTreeMap<&str, String> = forced
        .environment(
            "mb",
            Path::new("/s"),
            "t",
            &BTreeMap::new(),
            &BTreeMap::new(),
        )
        .into_iter()
        .collect();
    assert_eq!(vars["MAIBOT_FORCE_PLUGIN_COMPATIBILITY"], "1");
    assert!(
        !forced.same_launch(&plain),
        "the runner reads it once, at start"
    );
}
