//! `maitool.toml` text through the host's parser (`HostConfig::parse`: `${VAR:-default}`
//! expansion, then TOML) and validation (`HostConfig::resolve`).
//!
//! Every path the input names is moved under a directory that does not exist before
//! `resolve` runs, so its reads (plugin manifests, plugin config files, the Claude Desktop
//! file) and existence checks all fail fast: the target never touches a real file, and never
//! blocks on a device the input might name.
#![no_main]

use std::path::{Component, Path, PathBuf};

use libfuzzer_sys::fuzz_target;
use maitool_host::config::expand_env;
use maitool_host::{ConfigError, HostConfig};

const FILE: &str = "maitool.toml";
const BASE: &str = "/nonexistent-maitool-fuzz/config";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // `$$` is a literal `$`: escaping every `$` must give the text back, whatever it holds.
    assert_eq!(
        expand_env(&text.replace('$', "$$")).as_deref(),
        Ok(text),
        "escaped text does not expand to itself"
    );

    let path = Path::new(FILE);
    let mut config = match HostConfig::parse(text, path) {
        Ok(config) => config,
        Err(err) => return names_the_file(&err),
    };
    confine_paths(&mut config);
    let runners = config.runners.clone();
    let enable_mcp = config.mcp.enable;
    let loaded = match config.resolve(Some(path.to_path_buf()), Path::new(BASE)) {
        Ok(loaded) => loaded,
        Err(err) => return names_the_file(&err),
    };

    // Nothing exists under BASE, so no enabled runner can have resolved.
    assert!(runners.iter().all(|r| !r.enabled), "a runner resolved");
    assert!(loaded.runners.is_empty());
    let host = &loaded.config.host;
    for p in [
        &host.control_socket,
        &host.data_dir,
        &loaded.config.builtin.database,
    ] {
        assert!(
            p.is_absolute() || p.as_os_str() == ":memory:",
            "{} was left relative",
            p.display()
        );
    }
    // What the host computes from a validated configuration must not panic.
    let mcp = &loaded.config.mcp;
    if enable_mcp {
        let servers = mcp.effective_servers().expect("validated once already");
        for server in servers.iter().filter(|s| s.enabled) {
            let _ = server.connect_timeout(mcp.connect_timeout_seconds);
            let _ = server.idle_timeout();
            let _ = server.read_timeout();
            let _ = server.http_timeout();
        }
        for attempt in [0, 1, 7, 31, u32::MAX] {
            let _ = mcp.reconnect_delay(attempt);
        }
    }
});

/// A rejected file is reported against the file, with a message.
fn names_the_file(err: &ConfigError) {
    let text = err.to_string();
    assert!(text.contains(FILE), "error does not name the file: {text}");
    assert!(text.len() > FILE.len() + 2, "empty error message: {text:?}");
}

/// `p` made relative (root dropped), so that joining it to BASE keeps it under BASE.
fn relative(p: &Path) -> PathBuf {
    p.components()
        .filter(|c| !matches!(c, Component::RootDir | Component::Prefix(_)))
        .collect()
}

/// Moves every path that `resolve` reads or checks under BASE.
fn confine_paths(config: &mut HostConfig) {
    for runner in &mut config.runners {
        for p in [&mut runner.executable, &mut runner.plugin_dir]
            .into_iter()
            .flatten()
        {
            *p = relative(p);
        }
        for settings in runner.plugins.values_mut() {
            if let Some(p) = settings.config_file.as_mut() {
                *p = relative(p);
            }
        }
    }
    if let Some(p) = config.mcp.claude_desktop_config.as_mut() {
        *p = relative(p);
    }
}
