//! The market-plugin tests' fixture: the third-party plugins of `tests/fixtures/market-plugins`,
//! copied into a temporary folder and named by a configuration as README's commands leave it:
//! one `kind = "maibot"` runner over the folder, in the Python environment maitool prepares
//! itself (MaiBot's runner, the baseline of MaiBot's own dependencies, every plugin's declared
//! dependencies, all from PyPI), under a real `maitool serve` and the one-shot verbs.
//!
//! The environment is prepared once per test binary with `maitool prepare`, in
//! `~/.cache/maitool-market-env` (`MAITOOL_MARKET_ENV` overrides), and shared by the tests;
//! preparing an unchanged environment again is quick. Where it cannot be prepared (no Python
//! 3.12, no package index) the tests skip loudly, except under
//! `MAITOOL_REQUIRE_MARKET_PLUGINS=1` (CI), where they fail.

#![allow(dead_code)] // Each test file uses a different part.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use maitool_e2e::cli::Maitool;
use serde_json::Value;

pub use crate::maibot_support::{Serve, copy_dir};
pub mod declared;
pub mod servers;

/// The variable under which a missing environment fails the tests instead of skipping them.
pub const REQUIRE_VAR: &str = "MAITOOL_REQUIRE_MARKET_PLUGINS";

/// Where the fixtures are.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/market-plugins")
}

/// The fixtures: (folder, plugin id).
pub const PLUGINS: [(&str, &str); 15] = [
    ("weather-forecast", "whitefox.weather-forecast"),
    (
        "maimai_birdwatching_plugin",
        "SengokuCola.maimai-birdwatching-plugin",
    ),
    ("self_identity_plugin", "sengokucola.self-identity-plugin"),
    ("better_image", "sengokucola.better-image"),
    ("aliyun-tts-plugin", "sengokucola.aliyun-tts-plugin"),
    ("maibot-fetch-url-plugin", "com.0-hz.fetch-url"),
    ("maibot-impression-card-plugin", "com.0-hz.impression-card"),
    ("maibook-plugin", "com.0-hz.maibook"),
    (
        "maibot-message-react-plugin",
        "davidblackcn.maibot-message-react-plugin",
    ),
    ("c-daily-problem", "E33EPUS.c-daily-problem"),
    (
        "bangumi_browse_plugin",
        "github.fffold.bangumi-browse-plugin",
    ),
    ("maibot-world-clock", "com.0-hz.world-clock"),
    ("MaiBot-plastic-memory-plugin", "com.0-hz.plastic-memory"),
    ("custom_commands_plugin", "TAIY2020.custom-commands-plugin"),
    ("Mai_love", "maibot-community.mai-love"),
];

/// The five fixtures whose manifest caps `host_application.max_version` at 1.0.0.
pub const CAPPED_BELOW_1_3: [&str; 5] = [
    "whitefox.weather-forecast",
    "SengokuCola.maimai-birdwatching-plugin",
    "sengokucola.self-identity-plugin",
    "sengokucola.better-image",
    "sengokucola.aliyun-tts-plugin",
];

/// How a test names the runner's environment.
#[derive(Debug, Clone)]
pub enum Env {
    /// The shared environment, already prepared.
    Shared(PathBuf),
    /// No `[runners.python_env]` at all: the managed default under `data_dir`, which `serve`
    /// prepares itself, as on a fresh machine.
    Fresh,
}

/// The shared environment, prepared once for this test binary; `None` after a loud skip.
pub fn shared_env() -> Option<Env> {
    static PREPARED: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let prepared = PREPARED.get_or_init(prepare_shared);
    match prepared {
        Ok(path) => Some(Env::Shared(path.clone())),
        Err(problem) => {
            if std::env::var(REQUIRE_VAR).as_deref() == Ok("1") {
                panic!("{problem}; {REQUIRE_VAR}=1 requires it");
            }
            maitool_e2e::skip::announce(&format!("the market-plugin tests: {problem}"));
            None
        }
    }
}

fn shared_env_path() -> PathBuf {
    std::env::var_os("MAITOOL_MARKET_ENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
                .join(".cache/maitool-market-env")
        })
}

/// `maitool prepare` on a configuration naming every fixture, into the shared path.
fn prepare_shared() -> Result<PathBuf, String> {
    let path = shared_env_path();
    let market = Market::with(Setup {
        env: Env::Shared(path.clone()),
        ..Setup::default()
    });
    let started = Instant::now();
    let (code, out, err) = market.run(&["prepare"]);
    if code != 0 {
        return Err(format!(
            "`maitool prepare` could not prepare the market plugins' environment in {} \
             (exit {code}):\n{out}\n{err}",
            path.display()
        ));
    }
    eprintln!(
        "market plugins' environment prepared in {:.1?} ({})",
        started.elapsed(),
        path.display()
    );
    Ok(path)
}

/// What a test's configuration says beyond the fixtures.
#[derive(Debug, Clone)]
pub struct Setup {
    /// The runner's environment.
    pub env: Env,
    /// The runner key for MaiBot's force-compatibility switch.
    pub force_compatibility: bool,
    /// The runner key that grants each plugin what its manifest declares.
    pub grant_declared: bool,
    /// Appended to the configuration (plugin tables, `[llm]`, …).
    pub extra: String,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            env: Env::Fresh,
            force_compatibility: true,
            grant_declared: true,
            extra: String::new(),
        }
    }
}

/// A temporary host over a copy of the fixtures.
pub struct Market {
    dir: tempfile::TempDir,
    pub config: PathBuf,
}

impl Market {
    /// Every fixture, in the shared environment, forced compatible and granted what each
    /// manifest declares, with `extra` appended.
    pub fn new(env: &Env, extra: &str) -> Market {
        Market::with(Setup {
            env: env.clone(),
            extra: extra.to_owned(),
            ..Setup::default()
        })
    }

    pub fn with(setup: Setup) -> Market {
        let dir = tempfile::tempdir().unwrap();
        let plugins = dir.path().join("plugins");
        for (folder, _) in PLUGINS {
            copy_dir(&fixtures().join(folder), &plugins.join(folder));
        }
        let market = Market {
            config: dir.path().join("maitool.toml"),
            dir,
        };
        market.write_config(&setup);
        market
    }

    /// Rewrites the configuration.
    pub fn write_config(&self, setup: &Setup) {
        let root = self.dir.path().display();
        let seed = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/seed");
        let env = match &setup.env {
            Env::Shared(path) => format!("\n[runners.python_env]\npath = \"{}\"\n", path.display()),
            Env::Fresh => String::new(),
        };
        // MaiBot's runner says hello once MaiBot is imported and reports ready once all fifteen
        // plugins are imported and registered: seconds here, but over the defaults (10 s and
        // 30 s, and 5 s for a one-shot listing) on a loaded two-core CI machine running other
        // tests beside.
        let text = format!(
            "[host]\ncontrol_socket = \"{root}/control.sock\"\ndata_dir = \"{root}/data\"\n\
             enable_builtin = true\n\
             listing_wait_ms = 180000\n\n\
             [builtin]\ndatabase = \"{root}/maitool.sqlite3\"\nfocus_mode = true\n\n\
             [builtin.seed]\nprofiles = \"{seed}/profiles.json\"\n\n\
             [bot]\nnickname = \"Mai\"\nqq_account = \"10000\"\n\n\
             [plugin_runtime]\nhandshake_timeout_ms = 60000\nready_timeout_ms = 180000\n\n\
             [[runners]]\nname = \"market\"\nkind = \"maibot\"\nplugin_dirs = [\"plugins\"]\n\
             force_plugin_compatibility = {}\ngrant_declared = {}\n{env}\n{}",
            setup.force_compatibility,
            setup.grant_declared,
            setup.extra,
            seed = seed.display(),
        );
        std::fs::write(&self.config, text).unwrap();
    }

    /// The temporary folder.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// A plugin's folder in the copy.
    pub fn plugin_dir(&self, folder: &str) -> PathBuf {
        self.dir.path().join("plugins").join(folder)
    }

    /// `maitool` on this configuration and control socket.
    pub fn cli(&self) -> Maitool {
        Maitool::new(&self.config, &self.dir.path().join("control.sock"))
    }

    /// Runs a verb; (exit code, stdout, stderr).
    pub fn run(&self, args: &[&str]) -> (i32, String, String) {
        self.cli().run(args)
    }

    /// Runs a verb that must succeed and print JSON.
    pub fn json(&self, args: &[&str]) -> Value {
        self.cli().json(args)
    }

    /// Calls a tool in group `10001`'s chat `st1`, as `u-alice` on `qq`; (exit code, result).
    pub fn call(&self, tool: &str, args: &str) -> (i32, Value) {
        self.call_in(tool, args, &["--group-chat", "--group-id", "10001"])
    }

    /// Calls a tool in chat `st1` as `u-alice` on `qq`, with `context` flags.
    pub fn call_in(&self, tool: &str, args: &str, context: &[&str]) -> (i32, Value) {
        let mut argv = vec![
            "call",
            tool,
            "--args",
            args,
            "--stream-id",
            "st1",
            "--session-id",
            "s1",
            "--user-id",
            "u-alice",
            "--platform",
            "qq",
            "--json",
        ];
        argv.extend_from_slice(context);
        let (code, out, err) = self.run(&argv);
        let result = serde_json::from_str(&out)
            .unwrap_or_else(|e| panic!("call {tool} printed no JSON ({e}): {out}\n{err}"));
        (code, result)
    }

    /// The runner's status.
    pub fn runner(&self) -> Value {
        self.json(&["status", "--json"])["runners"][0].clone()
    }

    /// `maitool serve`, its JSON log collected; returns once the runner is ready and has
    /// reported every plugin (waiting up to `limit`, which covers preparing a fresh
    /// environment).
    pub fn serve_within(&self, limit: Duration) -> Serve {
        let serve = self.serve_started(limit);
        self.wait_settled(limit);
        serve
    }

    /// `maitool serve`, returned as soon as it serves (its runner may still be preparing or
    /// loading).
    pub fn serve_started(&self, limit: Duration) -> Serve {
        let mut command = self.cli().command();
        command
            .args(["--log-format", "json", "serve"])
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let serve = Serve::start(command);
        serve.wait_for_log_within(limit, |line| {
            line["fields"]["message"] == "maitool is serving"
        });
        serve
    }

    /// [`serve_within`](Self::serve_within) two minutes: fifteen plugins load in a few
    /// seconds, more on a loaded machine.
    pub fn serve(&self) -> Serve {
        self.serve_within(Duration::from_secs(120))
    }

    /// Waits until the runner is ready and no plugin is still loading; returns its status.
    pub fn wait_settled(&self, limit: Duration) -> Value {
        let deadline = Instant::now() + limit;
        loop {
            let runner = self.runner();
            let plugins = runner["plugins"].as_array().cloned().unwrap_or_default();
            let settled = runner["state"] == "ready"
                && plugins.len() == PLUGINS.len()
                && plugins.iter().all(|p| p["state"] != "loading");
            if settled {
                return runner;
            }
            assert!(
                Instant::now() < deadline,
                "the market runner did not settle within {limit:?}: {runner}"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// The Python of the environment the runner runs in (from `status`).
    pub fn python(&self) -> PathBuf {
        PathBuf::from(self.runner()["executable"].as_str().unwrap())
    }
}

/// Runs `code` in `python` (in a scratch folder, as an installed MaiBot writes logs where it
/// runs); its stdout, trimmed. Panics with stderr when it fails.
pub fn python_says(python: &Path, code: &str) -> String {
    let scratch = tempfile::tempdir().unwrap();
    let output = Command::new(python)
        .args(["-c", code])
        .current_dir(scratch.path())
        .env("MAIBOT_INSTANCE_DIR", scratch.path())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{} -c {code}: {}",
        python.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

/// A tool of a `tools --json` listing by name.
pub fn tool<'a>(tools: &'a Value, name: &str) -> &'a Value {
    tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("{name} not listed in {tools}"))
}

/// A plugin of a `plugins --json` listing by id.
pub fn plugin<'a>(plugins: &'a Value, id: &str) -> &'a Value {
    plugins
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == id)
        .unwrap_or_else(|| panic!("{id} not in {plugins}"))
}

/// A result's text: `content`, else (when empty) `error_message`.
pub fn text(result: &Value) -> String {
    [&result["content"], &result["error_message"]]
        .into_iter()
        .filter_map(Value::as_str)
        .find(|text| !text.is_empty())
        .unwrap_or_default()
        .to_owned()
}

/// Log lines of one plugin's loggers (`plugin_id` field) whose message contains `needle`.
pub fn plugin_logs(serve: &Serve, needle: &str) -> Vec<String> {
    serve
        .log()
        .iter()
        .filter_map(|line| line["fields"]["message"].as_str().map(str::to_owned))
        .filter(|message| message.contains(needle))
        .collect()
}
