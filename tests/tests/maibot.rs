//! MaiBot plugins, written against `maibot-plugin-sdk` (`examples/maibot-plugins`), run
//! unmodified by MaiBot's own runner from PyPI under a real `maitool serve`: listing,
//! calls, refusals, the operator's settings, crashes, reload and unload.
//!
//! The runner is installed by `.ci/install-maibot-runner.sh`. Without it these tests skip
//! loudly, except under `MAITOOL_REQUIRE_MAIBOT=1` (CI), where they fail.

mod maibot_support;

use std::time::{Duration, Instant};

use maibot_support::{Fixture, alive, cmdline, maibot_python};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::{Value, json};

fn tool<'a>(tools: &'a Value, name: &str) -> &'a Value {
    tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("{name} not listed in {tools}"))
}

fn names(tools: &Value) -> Vec<String> {
    tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

fn plugin<'a>(plugins: &'a Value, id: &str) -> &'a Value {
    plugins
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == id)
        .unwrap_or_else(|| panic!("{id} not in {plugins}"))
}

#[test]
fn tools_are_listed_with_schemas_from_their_parameter_lists_and_calls_are_normalised() {
    let Some(python) = maibot_python() else {
        return;
    };
    let fixture = Fixture::new(
        python,
        "[runners.plugins.\"examples.maibot_action\"]\ncapabilities = [\"send.*\"]\n",
    );
    let serve = fixture.serve();

    let tools = fixture.json(&["tools", "--json", "--group-chat", "--stream-id", "st1"]);
    let quote = tool(&tools, "quote_order");
    assert_eq!(quote["provider_name"], "plugin_runtime");
    assert_eq!(quote["metadata"]["plugin_id"], "examples.maibot_typed");
    assert_eq!(
        quote["parameters_schema"],
        json!({
            "type": "object",
            "properties": {
                "item": {"type": "string", "description": "What to order"},
                "quantity": {"type": "integer", "description": "How many"},
                "unit_price": {"type": "number", "description": "Price of one", "default": 1.5},
                "express": {"type": "boolean", "description": "Express delivery"},
                "size": {"type": "string", "description": "Package size",
                         "enum": ["small", "medium", "large"]},
                "tags": {"type": "array", "description": "Labels for the order",
                         "items": {"type": "string"}},
                "address": {"type": "object", "description": "Where to deliver",
                            "properties": {"city": {"type": "string"}, "zip": {"type": "string"}},
                            "required": ["city"]}
            },
            "required": ["item", "quantity"]
        })
    );
    let welcome = tool(&tools, "welcome");
    assert_eq!(welcome["metadata"]["legacy_action"], true);
    assert_eq!(welcome["metadata"]["invoke_method"], "plugin.invoke_action");
    assert_eq!(
        welcome["parameters_schema"]["properties"]["name"],
        json!({"type": "string", "description": "Who to greet"})
    );

    let (code, ok) = fixture.call(
        "quote_order",
        r#"{"item": "tea", "quantity": 3, "express": true, "size": "large", "tags": ["a", "b"], "address": {"city": "Paris"}}"#,
    );
    assert_eq!(code, 0, "{ok}");
    assert_eq!(
        ok["content"],
        "3 x tea (large) = 9.50; tags [a,b]; to Paris"
    );
    assert_eq!(ok["metadata"]["plugin_id"], "examples.maibot_typed");

    // A dict with success false, a raised exception and a failed (False, msg) Action.
    let (code, refused) = fixture.call("quote_order", r#"{"item": "tea", "quantity": 0}"#);
    assert_eq!(code, 1, "{refused}");
    assert_eq!(refused["error_message"], "quantity must be positive, got 0");
    let (code, raised) = fixture.call("fail_loudly", "{}");
    assert_eq!(code, 1);
    assert!(
        raised["error_message"]
            .as_str()
            .unwrap()
            .contains("this tool always fails"),
        "{raised}"
    );
    let (code, greeted) = fixture.call("welcome", r#"{"name": "Bo"}"#);
    assert_eq!(code, 0, "{greeted}");
    assert_eq!(greeted["content"], "Hello, Bo!");
    let (code, nobody) = fixture.call("welcome", r#"{"name": ""}"#);
    assert_eq!(code, 1);
    assert_eq!(nobody["success"], false);
    assert_eq!(nobody["error_message"], "nobody to greet: `name` is empty");
    assert_eq!(
        nobody["structured_content"],
        json!([false, "nobody to greet: `name` is empty"])
    );

    // Arguments are checked against the schema before the runner sees them.
    for (args, needle) in [
        (r#"{"item": "tea"}"#, "\"quantity\" is a required property"),
        (r#"{"item": "tea", "quantity": 1, "size": "huge"}"#, "huge"),
        (
            r#"{"item": "tea", "quantity": 1, "address": {"zip": "1"}}"#,
            "\"city\" is a required property",
        ),
    ] {
        let (code, result) = fixture.call("quote_order", args);
        assert_eq!(code, 1, "{args}: {result}");
        let message = result["error_message"].as_str().unwrap();
        assert!(
            message.contains("invalid arguments") && message.contains(needle),
            "{args}: {message}"
        );
    }

    // send.text lands in the stream's history.
    let (code, posted) = fixture.call("post_note", r#"{"note": "buy milk"}"#);
    assert_eq!(code, 0, "{posted}");
    assert_eq!(posted["content"], "posted to st1");
    let (code, history) = fixture.call("fetch_history", r#"{"num": 5}"#);
    assert_eq!(code, 0, "{history}");
    assert!(
        history["content"]
            .as_str()
            .unwrap()
            .contains("note: buy milk"),
        "{history}"
    );

    // The declaration is shown beside the grants; the runner's real pid is reported.
    let plugins = fixture.json(&["plugins", "--json"]);
    let typed = plugin(&plugins, "examples.maibot_typed");
    assert_eq!(typed["declared_capabilities"], json!(["send.text"]));
    assert_eq!(typed["granted_capabilities"], json!(["send.text"]));
    let action = plugin(&plugins, "examples.maibot_action");
    assert_eq!(action["declared_capabilities"], json!(["send.text"]));
    assert_eq!(action["granted_capabilities"], json!(["send.*"]));
    let pid = fixture.runner()["pid"].as_u64().unwrap() as u32;
    assert!(
        cmdline(pid).contains("src.plugin_runtime.runner.runner_main"),
        "{}",
        cmdline(pid)
    );

    // Plugin records carry the plugin's id; none carries an empty one.
    let loaded = serve.wait_for_log(|l| l["fields"]["message"] == "typed tools loaded");
    assert_eq!(
        loaded["fields"]["plugin_id"], "examples.maibot_typed",
        "{loaded}"
    );
    let module = serve.wait_for_log(|l| l["fields"]["message"] == "module logger ready");
    assert_eq!(
        module["fields"]["plugin_id"], "examples.maibot_typed",
        "{module}"
    );
    let empty: Vec<Value> = serve
        .log()
        .into_iter()
        .filter(|l| l["fields"]["plugin_id"] == "" || l["span"]["plugin_id"] == "")
        .collect();
    assert!(
        empty.is_empty(),
        "records with an empty plugin id: {empty:?}"
    );
}

#[test]
fn a_plugin_without_the_grant_gets_its_capability_call_refused_by_name() {
    let Some(python) = maibot_python() else {
        return;
    };
    // greet calls send.text, which the operator did not grant it.
    let fixture = Fixture::new(python, "");
    let _serve = fixture.serve();
    let (code, result) = fixture.call("welcome", r#"{"name": "Bo"}"#);
    assert_eq!(code, 1, "{result}");
    let message = result["error_message"].as_str().unwrap();
    assert!(
        message.contains("E_CAPABILITY_DENIED") && message.contains("send.text"),
        "{message}"
    );
}

#[test]
fn an_operator_disabled_plugin_is_not_loaded_and_overrides_reach_the_plugin() {
    let Some(python) = maibot_python() else {
        return;
    };
    let fixture = Fixture::new(
        python,
        "[runners.plugins.\"examples.maibot_action\"]\nenabled = false\n\n\
         [runners.plugins.\"examples.maibot_config\"]\nconfig = { greeting = { salutation = \"Howdy\" } }\n",
    );
    let _serve = fixture.serve();
    let tools = names(&fixture.json(&["tools", "--json"]));
    assert!(!tools.contains(&"welcome".to_owned()), "{tools:?}");
    assert!(tools.contains(&"echo_text".to_owned()), "{tools:?}");
    let plugins = fixture.json(&["plugins", "--json"]);
    let action = plugin(&plugins, "examples.maibot_action");
    assert_eq!(action["state"], "inactive", "{action}");
    assert_eq!(
        action["reason"],
        "disabled by the operator (enabled = false)"
    );
    let (code, greeting) = fixture.call("configured_greeting", r#"{"name": "Ann"}"#);
    assert_eq!(code, 0, "{greeting}");
    assert_eq!(greeting["content"], "Howdy, Ann!");
}

#[test]
fn a_sigkilled_runner_is_restarted_and_callable_again() {
    let Some(python) = maibot_python() else {
        return;
    };
    let fixture = Fixture::new(python, "");
    let _serve = fixture.serve();
    let pid = fixture.runner()["pid"].as_u64().unwrap() as i32;
    kill(Pid::from_raw(pid), Signal::SIGKILL).unwrap();
    let runner = fixture.wait_ready(1);
    assert_ne!(runner["pid"].as_u64().unwrap() as i32, pid);
    assert_eq!(runner["last_exit_reason"], "killed by signal SIGKILL");
    let (code, echoed) = fixture.call("echo_text", r#"{"text": "back"}"#);
    assert_eq!(code, 0, "{echoed}");
    assert_eq!(echoed["content"], "back");
}

#[test]
fn a_sigkilled_host_leaves_no_python_runner_behind() {
    let Some(python) = maibot_python() else {
        return;
    };
    let fixture = Fixture::new(python, "");
    let mut serve = fixture.serve();
    let pid = fixture.runner()["pid"].as_u64().unwrap() as u32;
    assert!(alive(pid));
    serve.kill_hard();
    let deadline = Instant::now() + Duration::from_secs(5);
    while alive(pid) {
        assert!(
            Instant::now() < deadline,
            "the runner {pid} ({}) outlived its SIGKILLed host",
            cmdline(pid)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn reload_delivers_a_changed_config_and_unloads_a_disabled_plugin_without_a_restart() {
    let Some(python) = maibot_python() else {
        return;
    };
    let fixture = Fixture::new(python, "");
    let _serve = fixture.serve();
    let pid = fixture.runner()["pid"].clone();
    let (_, greeting) = fixture.call("configured_greeting", r#"{"name": "Ann"}"#);
    assert_eq!(greeting["content"], "Hello, Ann!");
    assert!(names(&fixture.json(&["tools", "--json"])).contains(&"welcome".to_owned()));

    fixture.write_config(
        "[runners.plugins.\"examples.maibot_config\"]\nconfig = { greeting = { punctuation = \"?\" } }\n\n\
         [runners.plugins.\"examples.maibot_action\"]\nenabled = false\n",
    );
    let report = fixture.json(&["reload", "--json"]);
    assert_eq!(
        report["plugins"]["reconfigured"],
        json!(["maibot/examples.maibot_config"]),
        "{report}"
    );
    assert_eq!(
        report["plugins"]["unloaded"],
        json!(["maibot/examples.maibot_action"]),
        "{report}"
    );
    assert_eq!(report["plugins"]["restarted"], json!([]), "{report}");

    let (_, greeting) = fixture.call("configured_greeting", r#"{"name": "Ann"}"#);
    assert_eq!(
        greeting["content"], "Hello, Ann?",
        "the file's salutation, the operator's punctuation"
    );
    let tools = names(&fixture.json(&["tools", "--json"]));
    assert!(!tools.contains(&"welcome".to_owned()), "{tools:?}");
    let (code, gone) = fixture.call("welcome", r#"{"name": "Bo"}"#);
    assert_ne!(code, 0, "{gone}");
    let runner = fixture.runner();
    assert_eq!(runner["pid"], pid, "no restart: {runner}");
    assert_eq!(runner["restart_count"], 0);
    let plugins = fixture.json(&["plugins", "--json"]);
    let action = plugin(&plugins, "examples.maibot_action");
    assert_eq!(action["state"], "unloaded", "{action}");
    assert_eq!(action["components"], json!([]));
}

/// The folder of MaiBot's `src` package in the runner's venv.
fn maibot_package(python: &std::path::Path) -> std::path::PathBuf {
    let output = std::process::Command::new(python)
        .args([
            "-c",
            "import importlib.util, os; print(os.path.dirname(importlib.util.find_spec('src').origin))",
        ])
        .output()
        .unwrap();
    std::path::PathBuf::from(String::from_utf8(output.stdout).unwrap().trim())
}

#[test]
fn a_runner_from_a_maibot_checkout_runs_there() {
    let Some(python) = maibot_python() else {
        return;
    };
    // A "checkout": a folder whose src/ is MaiBot's package.
    let checkout = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(maibot_package(&python), checkout.path().join("src")).unwrap();
    let fixture = Fixture::with_runner_keys(
        python,
        &format!("maibot_source = \"{}\"", checkout.path().display()),
        "",
    );
    let _serve = fixture.serve();
    let pid = fixture.runner()["pid"].as_u64().unwrap();
    let cwd = std::fs::read_link(format!("/proc/{pid}/cwd")).unwrap();
    assert_eq!(cwd, checkout.path().canonicalize().unwrap());
    let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap();
    let pythonpath = format!("PYTHONPATH={}", checkout.path().display());
    assert!(
        environ
            .split(|b| *b == 0)
            .any(|var| String::from_utf8_lossy(var).starts_with(&pythonpath)),
        "no {pythonpath}"
    );
    let (code, echoed) = fixture.call("echo_text", r#"{"text": "from a checkout"}"#);
    assert_eq!(code, 0, "{echoed}");
    assert_eq!(echoed["content"], "from a checkout");
}

#[test]
fn a_plugin_copied_from_a_maibot_install_loads_and_its_operator_command_answers_operators_only() {
    let Some(python) = maibot_python() else {
        return;
    };
    // MaiBot's own built-in plugin-management plugin, from the installed package.
    let package = maibot_package(&python);
    let original = package.join("plugins/built_in/plugin_management");
    assert!(
        original.join("_manifest.json").exists(),
        "{}",
        original.display()
    );
    // The operator list where MaiBot keeps it (`plugin.permission`), which the plugin reads
    // itself through config.get and the host checks before it runs the command.
    let fixture = Fixture::new(
        python,
        "[runners.plugins.\"builtin.plugin-management\"]\n\
         capabilities = [\"send.text\", \"config.get\"]\n\n\
         [bot.extra.plugin]\npermission = [\"QQ:op1\"]\n",
    );
    maibot_support::copy_dir(&original, &fixture.plugins_dir().join("plugin_management"));
    let _serve = fixture.serve();

    let plugins = fixture.json(&["plugins", "--json"]);
    let management = plugin(&plugins, "builtin.plugin-management");
    assert_eq!(management["state"], "loaded", "{management}");
    let command = &management["components"][0];
    assert_eq!(command["full_name"], "builtin.plugin-management.management");
    assert_eq!(command["component_type"], "COMMAND");
    assert_eq!(
        command["trigger"],
        json!({
            "kind": "command",
            "pattern": r"(?P<manage_command>^/pm(?:\s+.+)?\s*$)",
            "aliases": ["/插件管理"],
            "intercepts": false,
            "operator_only": true
        })
    );
    assert!(
        management["declared_capabilities"]
            .as_array()
            .unwrap()
            .contains(&json!("component.reload_plugin"))
    );
    let tools = names(&fixture.json(&["tools", "--json"]));
    assert!(!tools.contains(&"management".to_owned()), "{tools:?}");
    assert!(tools.contains(&"quote_order".to_owned()), "{tools:?}");

    // An operator's /pm runs it: it checks the permission itself and sends its help.
    let message = |user: &str| {
        let (code, out, err) = fixture.maitool(&[
            "message",
            "--json",
            "--stream-id",
            "pm",
            "--user-id",
            user,
            "--platform",
            "qq",
            "/pm",
        ]);
        let outcome: serde_json::Value =
            serde_json::from_str(&out).unwrap_or_else(|e| panic!("no JSON ({e}): {out}{err}"));
        (code, outcome)
    };
    let (code, outcome) = message("op1");
    assert_eq!(code, 0, "{outcome}");
    assert_eq!(outcome["command"]["success"], true, "{outcome}");
    assert_eq!(outcome["command"]["reply"], "帮助已发送");
    assert_eq!(
        outcome["command"]["matched_groups"],
        json!({"manage_command": "/pm"})
    );
    assert_eq!(outcome["sent"][0]["plugin_id"], "builtin.plugin-management");
    assert!(
        outcome["sent"][0]["text"].as_str().unwrap().contains("/pm"),
        "{outcome}"
    );
    // Anyone else's does not reach the plugin.
    let (code, outcome) = message("u2");
    assert_eq!(code, 1, "{outcome}");
    assert_eq!(outcome["command"]["ran"], false);
    assert_eq!(outcome["sent"], json!([]));
    assert!(
        outcome["command"]["error"]
            .as_str()
            .unwrap()
            .contains("is for operators (permission = \"operator\"), and qq:u2 is not one"),
        "{outcome}"
    );
}

#[test]
fn stopping_the_host_stops_the_processes_a_runners_plugins_started() {
    let Some(python) = maibot_python() else {
        return;
    };
    let fixture = Fixture::new(python, "");
    // A plugin that starts a long-lived child process of its own.
    let spawner = fixture.plugins_dir().join("spawner");
    std::fs::create_dir_all(&spawner).unwrap();
    let manifest =
        std::fs::read_to_string(fixture.plugins_dir().join("legacy_action/_manifest.json"))
            .unwrap()
            .replace("examples.maibot_action", "tests.spawner");
    std::fs::write(spawner.join("_manifest.json"), manifest).unwrap();
    std::fs::write(
        spawner.join("plugin.py"),
        r#"
import subprocess
from maibot_sdk import MaiBotPlugin, Tool

class Spawner(MaiBotPlugin):
    async def on_load(self):
        self.child = subprocess.Popen(["sleep", "600"])
    async def on_unload(self):
        pass
    async def on_config_update(self, scope, config_data, version):
        pass
    @Tool("child_pid", description="The pid of the child process.", core_tool=True)
    async def handle_child_pid(self, **kwargs):
        return {"content": str(self.child.pid)}

def create_plugin():
    return Spawner()
"#,
    )
    .unwrap();
    let serve = fixture.serve();
    let (code, result) = fixture.call("child_pid", "{}");
    assert_eq!(code, 0, "{result}");
    let child: u32 = result["content"].as_str().unwrap().parse().unwrap();
    assert!(
        alive(child) && cmdline(child).starts_with("sleep 600"),
        "{}",
        cmdline(child)
    );
    drop(serve); // SIGTERM: the host stops its runners gracefully, then exits.
    let deadline = Instant::now() + Duration::from_secs(5);
    while alive(child) {
        assert!(
            Instant::now() < deadline,
            "the plugin's child {child} outlived its stopped runner"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_plugin_reloads_another_through_component_reload_plugin_without_a_restart() {
    let Some(python) = maibot_python() else {
        return;
    };
    let fixture = Fixture::new(
        python,
        "[runners.plugins.\"tests.reloader\"]\ncapabilities = [\"component.reload_plugin\"]\n",
    );
    let reloader = fixture.plugins_dir().join("reloader");
    std::fs::create_dir_all(&reloader).unwrap();
    let manifest =
        std::fs::read_to_string(fixture.plugins_dir().join("legacy_action/_manifest.json"))
            .unwrap()
            .replace("examples.maibot_action", "tests.reloader");
    std::fs::write(reloader.join("_manifest.json"), manifest).unwrap();
    std::fs::write(
        reloader.join("plugin.py"),
        r#"
import json
from maibot_sdk import MaiBotPlugin, Tool
from maibot_sdk.types import ToolParameterInfo, ToolParamType

class Reloader(MaiBotPlugin):
    async def on_load(self):
        pass
    async def on_unload(self):
        pass
    async def on_config_update(self, scope, config_data, version):
        pass
    @Tool("reload_plugin", description="Reloads a plugin.", core_tool=True,
          parameters=[ToolParameterInfo(name="plugin", param_type=ToolParamType.STRING)])
    async def handle_reload_plugin(self, plugin, **kwargs):
        return {"content": json.dumps(await self.ctx.component.reload_plugin(plugin))}

def create_plugin():
    return Reloader()
"#,
    )
    .unwrap();
    let _serve = fixture.serve();
    let pid = fixture.runner()["pid"].clone();
    let (_, greeting) = fixture.call("configured_greeting", r#"{"name": "Ann"}"#);
    assert_eq!(greeting["content"], "Hello, Ann!");

    // The plugin's own file changes; a reload reads it again.
    let config = fixture.plugins_dir().join("configured/config.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, text.replace("\"Hello\"", "\"Hey\"")).unwrap();
    let (code, reloaded) = fixture.call("reload_plugin", r#"{"plugin": "examples.maibot_config"}"#);
    assert_eq!(code, 0, "{reloaded}");
    let answer: Value = serde_json::from_str(reloaded["content"].as_str().unwrap()).unwrap();
    assert_eq!(answer["success"], true, "{answer}");
    let (_, greeting) = fixture.call("configured_greeting", r#"{"name": "Ann"}"#);
    assert_eq!(greeting["content"], "Hey, Ann!");
    assert_eq!(
        fixture.runner()["pid"],
        pid,
        "reloaded in place, not restarted"
    );

    let (code, unknown) = fixture.call("reload_plugin", r#"{"plugin": "acme.nowhere"}"#);
    assert_eq!(code, 0, "{unknown}");
    let answer: Value = serde_json::from_str(unknown["content"].as_str().unwrap()).unwrap();
    assert_eq!(answer["success"], false, "{answer}");
    assert_eq!(answer["error"], "no runner hosts plugin acme.nowhere");
}
