//! MaiBot hook handlers under MaiBot's real runner (`tests/maibot-fixtures/hooks`), next to
//! the Rust example runners, under a real `maitool serve`:
//!
//! * the planner's request hook changes the tools a session is offered, through `maitool
//!   tools` and `maitool definitions`; an observe handler runs and its answer is ignored;
//! * `maitool hook` runs the hooks an engine would: abort, modified kwargs, each error
//!   policy, a handler that times out (and the circuit breaker that then pauses its plugin);
//! * a handler of a hook MaiBot does not have never runs and says so, and a call of a hook
//!   handler as a tool says what it is.
//!
//! Skips loudly without MaiBot's runner, except under `MAITOOL_REQUIRE_MAIBOT=1` (CI).

mod hooks_support;

use hooks_support::World;
use maitool_e2e::maibot::maibot_python;
use serde_json::{Value, json};

const HOOKS: &str = "fixtures.maibot_hooks";

fn world(python: &std::path::Path) -> World {
    World::new(
        python,
        &[("maibot", &["hooks"])],
        &[(
            "units",
            "[runners.plugins.\"examples.units\"]\ncapabilities = [\"api.call\"]".to_owned(),
        )],
    )
}

/// The names and descriptions of `tools --json` in `session` (none: no session).
fn offered(world: &World, session: Option<&str>) -> Vec<(String, String)> {
    let mut args = vec!["tools", "--json"];
    if let Some(session) = session {
        args.extend(["--session-id", session]);
    }
    world
        .json(&args)
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| {
            (
                tool["name"].as_str().unwrap().to_owned(),
                tool["description"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn has(tools: &[(String, String)], name: &str) -> bool {
    tools.iter().any(|(tool, _)| tool == name)
}

/// The tool names of `definitions --format openai` in `session`.
fn defined(world: &World, session: &str) -> Vec<String> {
    world.json(&[
        "definitions",
        "--format",
        "openai",
        "--json",
        "--session-id",
        session,
    ])["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap().to_owned())
        .collect()
}

/// `maitool hook NAME --kwargs KWARGS --json`: (exit code, outcome).
fn hook(world: &World, name: &str, kwargs: Value) -> (i32, Value) {
    let kwargs = kwargs.to_string();
    let (code, out, err) = world.maitool(&["hook", name, "--kwargs", &kwargs, "--json"]);
    let outcome = serde_json::from_str(&out)
        .unwrap_or_else(|e| panic!("hook {name} printed no JSON ({e}): {out}\n{err}"));
    (code, outcome)
}

#[test]
fn the_planner_hook_changes_the_tools_a_session_is_offered() {
    let Some(python) = maibot_python() else {
        return;
    };
    let world = world(&python);
    let serve = world.serve();
    let plain = offered(&world, None);
    let loud = offered(&world, Some("s1"));
    let quiet = offered(&world, Some("quiet-1"));
    for tools in [&plain, &loud] {
        assert!(
            has(tools, "send_emoji") && has(tools, "units_self_check"),
            "{tools:?}"
        );
    }
    assert!(
        !has(&quiet, "send_emoji") && !has(&quiet, "units_self_check"),
        "{quiet:?}"
    );
    assert_eq!(quiet.len(), loud.len() - 2);
    let described = |tools: &[(String, String)]| {
        tools
            .iter()
            .find(|(name, _)| name == "trip_length")
            .map(|(_, description)| description.clone())
            .unwrap()
    };
    assert_eq!(described(&quiet), "[quiet] trip length");
    assert_ne!(described(&loud), "[quiet] trip length");
    // What an engine sends the model: the built-in `send_emoji` and the core tool
    // `units_self_check` are visible tools, offered in one session and not the other.
    let loud = defined(&world, "s1");
    let quiet = defined(&world, "quiet-2");
    assert!(loud.contains(&"send_emoji".to_owned()), "{loud:?}");
    assert!(loud.contains(&"units_self_check".to_owned()), "{loud:?}");
    assert!(!quiet.contains(&"send_emoji".to_owned()), "{quiet:?}");
    assert!(!quiet.contains(&"units_self_check".to_owned()), "{quiet:?}");
    // The observe handler ran for the quiet listing, and its abort and empty tool list
    // were ignored (the listing above is not empty).
    serve.wait_for_log(|line| {
        line["fields"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("observed a listing of") && m.ends_with("quiet-1"))
    });
}

#[test]
fn an_engine_hook_aborts_changes_kwargs_and_follows_error_policies() {
    let Some(python) = maibot_python() else {
        return;
    };
    let world = world(&python);
    let _serve = world.serve();

    let message =
        |text: &str| json!({"message": {"message_id": "m1", "processed_plain_text": text}});
    let (code, passed) = hook(&world, "chat.receive.before_process", message("hello"));
    assert_eq!(code, 0, "{passed}");
    assert_eq!(passed["aborted"], false);
    assert_eq!(
        passed["kwargs"]["message"]["processed_plain_text"],
        "hello [checked]"
    );
    assert!(passed["kwargs"].get("hook_name").is_none(), "{passed}");
    let (code, dropped) = hook(&world, "chat.receive.before_process", message("buy spam"));
    assert_eq!(code, 1, "{dropped}");
    assert_eq!(dropped["aborted"], true);
    assert_eq!(dropped["stopped_by"], format!("{HOOKS}.drop_spam"));
    assert_eq!(dropped["custom_results"], json!([{"dropped": "m1"}]));

    let upsert =
        |situation: &str| json!({"session_id": "s1", "situation": situation, "style": "x"});
    let (code, calm) = hook(&world, "expression.learn.before_upsert", upsert("calm"));
    assert_eq!(
        (code, &calm["kwargs"]["style"]),
        (0, &json!("x+late")),
        "{calm}"
    );
    assert_eq!(calm["errors"], json!([]));
    // error_policy skip: the failure is recorded and the later handler still runs.
    let (code, skipped) = hook(
        &world,
        "expression.learn.before_upsert",
        upsert("boom-skip"),
    );
    assert_eq!(code, 0, "{skipped}");
    assert_eq!(skipped["kwargs"]["style"], "x+late");
    assert!(
        skipped["errors"][0]
            .as_str()
            .unwrap()
            .contains("fail_and_skip failed: the skip handler broke"),
        "{skipped}"
    );
    // error_policy abort: the hook stops at the failed handler.
    let (code, aborted) = hook(
        &world,
        "expression.learn.before_upsert",
        upsert("boom-abort"),
    );
    assert_eq!(code, 1, "{aborted}");
    assert_eq!(aborted["stopped_by"], format!("{HOOKS}.fail_and_abort"));
    assert_eq!(aborted["kwargs"]["style"], "x");

    // Bad input: exit 2 and a message that says what is wrong; the host keeps serving.
    let (code, _, err) = world.maitool(&["hook", "chat.receive.before_process", "--kwargs", "{}"]);
    assert_eq!(code, 2);
    assert!(err.contains("\"message\" is a required property"), "{err}");
    let (code, _, err) = world.maitool(&["hook", "heart_fc.cycle_start"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("unknown hook \"heart_fc.cycle_start\""),
        "{err}"
    );
    let (code, _, err) = world.maitool(&["hook", "chat.receive.before_process", "--kwargs", "[1]"]);
    assert_eq!(code, 2);
    assert!(err.contains("--kwargs must be a JSON object"), "{err}");

    // `hook --list` says who runs each hook and lists its handlers in order.
    let hooks = world.json(&["hook", "--list", "--json"]);
    let find = |name: &str| {
        hooks
            .as_array()
            .unwrap()
            .iter()
            .find(|hook| hook["name"] == name)
            .unwrap()
            .clone()
    };
    let planner = find("maisaka.planner.before_request");
    assert!(
        planner["run_by"]
            .as_str()
            .unwrap()
            .starts_with("maitool runs it whenever it lists")
    );
    let upsert_hook = find("expression.learn.before_upsert");
    let upserts: Vec<&str> = upsert_hook["handlers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["full_name"].as_str().unwrap())
        .collect();
    assert_eq!(
        upserts,
        [
            "fixtures.maibot_hooks.fail_and_abort",
            "fixtures.maibot_hooks.fail_and_skip",
            "fixtures.maibot_hooks.mark_late"
        ]
    );
    assert!(
        find("jargon.extract.before_persist")["run_by"]
            .as_str()
            .unwrap()
            .starts_with("maitool never runs it by itself")
    );
}

#[test]
fn a_handler_that_cannot_run_says_so_and_a_handler_is_not_a_tool() {
    let Some(python) = maibot_python() else {
        return;
    };
    let world = world(&python);
    let _serve = world.serve();
    let plugins = world.json(&["plugins", "--json"]);
    let hooks = plugins
        .as_array()
        .unwrap()
        .iter()
        .find(|plugin| plugin["id"] == HOOKS)
        .unwrap();
    assert_eq!(hooks["state"], "loaded", "{hooks}");
    let detail = |name: &str| {
        hooks["components"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["full_name"] == format!("{HOOKS}.{name}"))
            .and_then(|c| c["detail"].as_str())
            .unwrap_or_default()
            .to_owned()
    };
    assert!(
        detail("stale_hook").starts_with(
            "hook handler that never runs: hook heart_fc.heart_flow_cycle_start is not one of \
             MaiBot's hooks"
        ),
        "{}",
        detail("stale_hook")
    );
    assert!(
        detail("too_slow").starts_with(
            "blocking hook handler of jargon.extract.before_persist (normal, error_policy skip, \
             timeout 300 ms); maitool never runs it by itself"
        ),
        "{}",
        detail("too_slow")
    );
    let (code, text, _) = world.maitool(&["plugins"]);
    assert_eq!(code, 0);
    assert!(text.contains("hook handler that never runs"), "{text}");

    // The plugin's tool works; its handlers are no tools, and a call says what they are.
    let (code, pong) = world.call("hooks_ping", &json!({}));
    assert_eq!((code, &pong["content"]), (0, &json!("pong")), "{pong}");
    let (code, refused) = world.call("drop_spam", &json!({}));
    assert_eq!(code, 1);
    assert_eq!(
        refused["error_message"].as_str().unwrap(),
        "drop_spam is not a tool: plugin fixtures.maibot_hooks declares it as a blocking hook \
         handler of chat.receive.before_process (normal, error_policy skip, the runtime's hook \
         timeout); maitool runs it on every chat message it receives (`maitool message`, a \
         plugin's gateway, MessageFlow::receive), before anything else; an abort drops the \
         message"
    );
    let (_, refused) = world.call("fixtures.maibot_hooks.hide_in_quiet_sessions", &json!({}));
    assert!(
        refused["error_message"]
            .as_str()
            .unwrap()
            .contains("maitool runs it whenever it lists the tools of a session"),
        "{refused}"
    );
}

#[test]
fn a_handler_that_times_out_is_skipped_and_its_plugin_then_paused() {
    let Some(python) = maibot_python() else {
        return;
    };
    let world = world(&python);
    let _serve = world.serve();
    let persist = json!({"session_id": "s1", "session_name": "demo", "entries": []});
    let (code, outcome) = hook(&world, "jargon.extract.before_persist", persist.clone());
    assert_eq!(code, 0, "{outcome}");
    assert_eq!(
        outcome["errors"],
        json!(["hook handler fixtures.maibot_hooks.too_slow timed out after 300 ms"])
    );
    // The late handler ran after the one that timed out (error_policy skip).
    assert_eq!(outcome["kwargs"]["entries"], json!([{"content": "late"}]));

    // A handler alone on its hook that always times out: five failures of the plugin in a
    // row (the default circuit_failure_threshold) open its circuit breaker, the same one as
    // its tool calls, and its handlers are skipped for a cool-down with the reason, instead of
    // each waiting out its timeout.
    let finalize = json!({
        "session_id": "s1", "session_name": "demo", "content": "yyds", "count": 3,
        "raw_content_list": [], "comparison_result": {}, "is_jargon": true,
        "meaning": "", "is_complete": false, "last_inference_count": 0
    });
    for _ in 0..5 {
        let (_, outcome) = hook(&world, "jargon.inference.before_finalize", finalize.clone());
        assert_eq!(
            outcome["errors"],
            json!(["hook handler fixtures.maibot_hooks.stall timed out after 300 ms"])
        );
    }
    let (code, paused) = hook(&world, "jargon.extract.before_persist", persist);
    assert_eq!(code, 0, "{paused}");
    assert_eq!(paused["kwargs"]["entries"], json!([]), "no handler ran");
    let errors = paused["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 2, "{paused}");
    for error in errors {
        let error = error.as_str().unwrap();
        assert!(
            error.contains(
                "skipped: plugin fixtures.maibot_hooks: the circuit breaker is open after 5 \
                 consecutive failures (last: hook handler fixtures.maibot_hooks.stall timed out \
                 after 300 ms); the next call is let through in"
            ),
            "{paused}"
        );
    }
    // The plugin's tools are paused by the same breaker.
    let (code, refused) = world.call("hooks_ping", &json!({}));
    assert_eq!(code, 1, "{refused}");
    assert_eq!(
        refused["metadata"]["error_code"], "E_CIRCUIT_OPEN",
        "{refused}"
    );
    // `status` shows the circuit with the failure that opened it.
    let status = world.json(&["status", "--json"]);
    let plugin = status["runners"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|runner| runner["plugins"].as_array().unwrap())
        .find(|plugin| plugin["id"] == HOOKS)
        .unwrap();
    assert_eq!(plugin["circuit"]["state"], "open", "{plugin}");
    assert_eq!(
        plugin["circuit"]["last_failure"],
        "hook handler fixtures.maibot_hooks.stall timed out after 300 ms",
        "{plugin}"
    );
}

#[test]
fn the_message_flow_runs_the_plugins_receive_hooks() {
    let Some(python) = maibot_python() else {
        return;
    };
    let world = world(&python);
    let _serve = world.serve();
    let send = |text: &str| {
        let (code, out, err) = world.maitool(&[
            "message",
            "--stream-id",
            "st1",
            "--user-id",
            "u1",
            "--platform",
            "qq",
            "--json",
            text,
        ]);
        let outcome: Value = serde_json::from_str(&out)
            .unwrap_or_else(|e| panic!("message printed no JSON ({e}): {out}\n{err}"));
        (code, outcome)
    };
    let receive_hook = |outcome: &Value| {
        outcome["hooks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|run| run["hook"] == "chat.receive.before_process")
            .cloned()
            .unwrap_or_else(|| panic!("no chat.receive.before_process run: {outcome}"))
    };

    // drop_spam changes every message it lets through...
    let (code, kept) = send("hello");
    assert_eq!(code, 0, "{kept}");
    assert_eq!(kept["stored"], true, "{kept}");
    assert_eq!(kept["text"], "hello [checked]", "{kept}");
    assert_eq!(receive_hook(&kept)["modified"], true, "{kept}");

    // ... and aborts the hook for spam, which drops the message before it is stored.
    let (_, dropped) = send("buy spam now");
    assert_eq!(dropped["stored"], false, "{dropped}");
    assert_eq!(
        receive_hook(&dropped)["aborted_by"],
        format!("{HOOKS}.drop_spam"),
        "{dropped}"
    );
}
