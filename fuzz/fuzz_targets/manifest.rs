//! A plugin folder's manifest (`maitool-plugin.toml`), the operator's per-plugin settings
//! and the plugin's configuration file, through the same steps `RunnerConfig::resolve` takes
//! once it has read the files: `PluginManifest::from_toml`, `PluginManifest::apply` and
//! `PluginSettings::merge_config_file`.
//!
//! Input: manifest text, NUL, settings text (`[<plugin id>]` tables, as under
//! `runners.plugins` in `maitool.toml`), NUL, configuration file text.
#![no_main]

use std::collections::BTreeMap;
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use maitool_fuzz::split_parts;
use maitool_host::plugin::{PluginManifest, PluginSettings};

const DIR: &str = "/plugins/weather";

fuzz_target!(|data: &[u8]| {
    let [manifest, settings, config_file] = split_parts::<3>(data);
    let (Ok(manifest), Ok(settings), Ok(config_file)) = (
        std::str::from_utf8(manifest),
        std::str::from_utf8(settings),
        std::str::from_utf8(config_file),
    ) else {
        return;
    };
    let manifest = PluginManifest::from_toml(manifest);
    let settings = toml::from_str::<BTreeMap<String, PluginSettings>>(settings);
    if let Err(err) = &manifest {
        assert!(!err.to_string().trim().is_empty(), "empty manifest error");
    }
    let mut plugins = settings.unwrap_or_default();
    if let Ok(manifest) = &manifest {
        applies(manifest, &mut plugins);
    }
    for settings in plugins.values() {
        merges(settings.clone(), config_file);
    }
});

/// The manifest's grants are all added, once each, to what the operator granted; its
/// configuration file is used unless the operator named one; the executable is in the folder
/// unless the manifest gives an absolute path.
fn applies(manifest: &PluginManifest, plugins: &mut BTreeMap<String, PluginSettings>) {
    let before = plugins.get(&manifest.id).cloned().unwrap_or_default();
    let others: BTreeMap<String, PluginSettings> = plugins
        .iter()
        .filter(|(id, _)| **id != manifest.id)
        .map(|(id, s)| (id.clone(), s.clone()))
        .collect();
    let dir = Path::new(DIR);
    let executable = manifest.apply(dir, plugins);

    assert_eq!(executable, dir.join(&manifest.executable));
    let after = &plugins[&manifest.id];
    assert!(
        after.capabilities.starts_with(&before.capabilities),
        "operator grants were changed"
    );
    for grant in &manifest.capabilities {
        assert!(after.capabilities.contains(grant), "grant {grant:?} lost");
    }
    for added in &after.capabilities[before.capabilities.len()..] {
        assert!(
            manifest.capabilities.contains(added),
            "grant {added:?} invented"
        );
        assert!(
            !before.capabilities.contains(added),
            "grant {added:?} added twice"
        );
        assert_eq!(
            after.capabilities.iter().filter(|g| *g == added).count(),
            1,
            "grant {added:?} added twice"
        );
    }
    let want_file = before
        .config_file
        .clone()
        .or_else(|| manifest.config_file.as_ref().map(|f| dir.join(f)));
    assert_eq!(after.config_file, want_file);
    assert_eq!(
        (after.enabled, &after.config),
        (before.enabled, &before.config)
    );
    for (id, settings) in &others {
        assert_eq!(
            plugins.get(id),
            Some(settings),
            "another plugin's settings changed"
        );
    }
}

/// The file's keys are merged under the inline configuration: inline keys keep their values,
/// the file's other keys are added, nothing else appears.
fn merges(mut settings: PluginSettings, config_file: &str) {
    let inline = settings.config.clone();
    match settings.merge_config_file(config_file) {
        Ok(()) => {
            let file: toml::Table = toml::from_str(config_file).expect("it parsed once");
            for (key, value) in &inline {
                assert_eq!(settings.config.get(key), Some(value), "inline {key:?} lost");
            }
            for key in file.keys() {
                assert!(settings.config.contains_key(key), "file key {key:?} lost");
            }
            for key in settings.config.keys() {
                assert!(
                    inline.contains_key(key) || file.contains_key(key),
                    "key {key:?} invented"
                );
            }
        }
        Err(err) => {
            assert!(
                !err.to_string().trim().is_empty(),
                "empty config file error"
            );
            assert_eq!(settings.config, inline, "a failed merge changed the config");
        }
    }
}
