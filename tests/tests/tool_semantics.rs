//! MaiBot 1.3's tool semantics through a real `maitool serve` and real runners
//! (`maitool-example-semantics`, the example MCP server, the built-in tools): `platforms` at
//! listing and call time, `stop_after_execution` in results and in the executor, and duplicate
//! names kept under a source prefix in every view. An invalid configuration is
//! `config_pause.rs`, the circuit breaker `circuit_breaker.rs`.

mod ops_support;
mod semantics_support;

use std::time::{Duration, Instant};

use maitool_protocol::ToolExecutionContext;
use semantics_support::{Fixture, McpStdio, names, tool};
use serde_json::json;

#[test]
fn a_platform_restricted_tool_is_offered_and_callable_on_its_platforms_only() {
    let fixture = Fixture::new("", "", "");
    let _serve = fixture.serve();

    // Listing: on Telegram (any case) it is there; on QQ and without a platform it is not.
    assert!(
        fixture
            .names(&["--platform", "telegram"])
            .contains(&"send_sticker".to_owned())
    );
    assert!(
        fixture
            .names(&["--platform", "Telegram"])
            .contains(&"send_sticker".to_owned())
    );
    for flags in [&["--platform", "qq"][..], &[]] {
        let names = fixture.names(flags);
        assert!(
            !names.contains(&"send_sticker".to_owned()),
            "{flags:?}: {names:?}"
        );
        assert!(names.contains(&"wrap_up".to_owned()), "{names:?}");
    }
    let listed = fixture.json(&["tools", "--json", "--platform", "telegram"]);
    assert_eq!(
        tool(&listed, "send_sticker")["metadata"]["platforms"],
        json!(["telegram"])
    );
    // The model's definitions agree.
    let definitions = fixture.json(&[
        "definitions",
        "--format",
        "openai",
        "--json",
        "--platform",
        "qq",
    ]);
    assert!(
        !definitions.to_string().contains("send_sticker"),
        "{definitions}"
    );
    let definitions = fixture.json(&[
        "definitions",
        "--format",
        "openai",
        "--json",
        "--platform",
        "telegram",
    ]);
    assert!(
        definitions.to_string().contains("send_sticker"),
        "{definitions}"
    );

    // Calls: refused with a reason on QQ and without a platform, run on Telegram.
    let (code, refused) = fixture.call(
        "send_sticker",
        json!({"set": "cats"}),
        &["--platform", "qq"],
    );
    assert_eq!(code, 1, "{refused}");
    assert_eq!(refused["metadata"]["error_code"], "E_PLATFORM_MISMATCH");
    assert_eq!(
        refused["error_message"],
        "tool send_sticker is not offered here: plugin examples.semantics offers it only on \
         telegram, and this call is on qq"
    );
    let (code, refused) = fixture.call("send_sticker", json!({"set": "cats"}), &[]);
    assert_eq!(code, 1);
    assert!(
        refused["error_message"]
            .as_str()
            .unwrap()
            .ends_with("and this call gives no platform"),
        "{refused}"
    );
    let (code, sent) = fixture.call(
        "send_sticker",
        json!({"set": "cats"}),
        &["--platform", "TELEGRAM"],
    );
    assert_eq!(code, 0, "{sent}");
    assert_eq!(sent["content"], "sent cats on TELEGRAM");

    // `plugins` shows the restriction.
    let (code, plugins, _) = fixture.run(&["plugins"]);
    assert_eq!(code, 0);
    assert!(
        plugins
            .lines()
            .any(|line| line.contains("examples.semantics.send_sticker")
                && line.contains("platforms=telegram")),
        "{plugins}"
    );
}

#[test]
fn a_malformed_platforms_value_refuses_that_plugin_alone() {
    let fixture = Fixture::new("", "env = { SEMANTICS_BAD_PLATFORMS = \"1\" }", "");
    let _serve = fixture.serve();
    let twin = fixture.plugin_status("examples.semantics_twin");
    assert_eq!(twin["state"], "failed", "{twin}");
    let reason = twin["reason"].as_str().unwrap();
    assert!(
        reason.contains(
            "component whoami: platforms must be a platform name or a list of platform names \
             (null or [] for every platform); got an empty name at position 1"
        ),
        "{reason}"
    );
    // The other plugin of the same runner serves, and keeps the bare name.
    assert_eq!(
        fixture.plugin_status("examples.semantics")["state"],
        "loaded"
    );
    let (code, answer) = fixture.call("whoami", json!({}), &[]);
    assert_eq!(
        (code, answer["content"].clone()),
        (0, json!("examples.semantics"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_executor_runs_the_rest_of_the_batch_then_ends_the_round_a_plugin_asked_to_end() {
    let fixture = Fixture::new("", "", "");
    let host =
        maitool_host::Host::start(maitool_host::HostConfig::load(&fixture.cli.config).unwrap())
            .await
            .unwrap();
    let engine = std::sync::Arc::new(maitool_host::builtin::StoreEngine::new(
        host.store.clone().expect("built-in store"),
    ));
    let executor =
        maitool_host::builtin::ToolCallExecutor::new(host.registry.clone(), engine.clone());
    let ctx = ToolExecutionContext {
        session_id: "s1".into(),
        stream_id: "st1".into(),
        ..ToolExecutionContext::default()
    };
    let call = |id: &str, name: &str| json!({"id": id, "type": "function", "function": {"name": name, "arguments": "{}"}});
    let turn = json!({"choices": [{"message": {"role": "assistant", "tool_calls": [
        call("c1", "whoami"),
        call("c2", "wrap_up"),
        call("c3", "plugin_examples_semantics_twin_whoami"),
        call("c4", "farewell"),
    ]}}]});
    let outcome = executor
        .execute_raw(maitool_host::llm::ModelApi::OpenAiChat, &turn, &ctx, None)
        .await
        .unwrap();
    let ran: Vec<(&str, &str)> = outcome
        .messages
        .iter()
        .map(|m| (m.call_id.as_str(), m.content.as_str()))
        .collect();
    assert_eq!(
        ran,
        [
            ("c1", "examples.semantics"),
            ("c2", "wrapped up"),
            ("c3", "examples.semantics_twin"),
            ("c4", "farewell"),
        ]
    );
    assert_eq!(outcome.stopped_by.as_deref(), Some("c2"));
    assert!(outcome.finish_round && outcome.paused_by.is_none());
    let state = engine.session_state("s1").await.unwrap();
    assert_eq!(
        (state.rounds_ended, state.last_end_reason.as_str()),
        (1, "stop_after_execution")
    );
    host.shutdown().await;
}

#[test]
fn stop_after_execution_reaches_call_json_and_the_text_output() {
    let fixture = Fixture::new("", "", "");
    let _serve = fixture.serve();
    for name in ["wrap_up", "farewell"] {
        let (code, result) = fixture.call(name, json!({}), &[]);
        assert_eq!(code, 0, "{result}");
        assert_eq!(result["stop_after_execution"], true, "{name}: {result}");
    }
    let (_, plain) = fixture.call("whoami", json!({}), &[]);
    assert_eq!(plain["stop_after_execution"], false);
    let (code, out, _) = fixture.run(&["call", "wrap_up", "--args", "{}"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "wrapped up\n(stop_after_execution: the tool ends the planner round)\n"
    );
    let listed = fixture.json(&["tools", "--json"]);
    assert_eq!(
        tool(&listed, "farewell")["metadata"]["stop_after_execution"],
        true
    );
}

/// Sends `serve --mcp-stdio` JSON-RPC requests and reads their answers.
#[test]
fn duplicate_names_are_kept_under_a_source_prefix_and_every_view_agrees() {
    let fixture = Fixture::new("", "", "");
    let _serve = fixture.serve();
    let tools = fixture.json(&["tools", "--json"]);
    let listed = names(&tools);
    // Between plugins, between a plugin and the built-ins, between an MCP server and a plugin.
    for (kept, renamed, source) in [
        (
            "whoami",
            "plugin_examples_semantics_twin_whoami",
            "examples.semantics_twin",
        ),
        (
            "finish",
            "plugin_examples_semantics_twin_finish",
            "examples.semantics_twin",
        ),
        ("echo", "mcp_example_echo", "example"),
    ] {
        assert!(listed.contains(&kept.to_owned()), "{listed:?}");
        let spec = tool(&tools, renamed);
        assert_eq!(spec["metadata"]["registry_original_name"], kept, "{spec}");
        let source_key = if renamed.starts_with("mcp_") {
            "server_name"
        } else {
            "plugin_id"
        };
        assert_eq!(spec["metadata"][source_key], source, "{spec}");
        assert!(
            !tool(&tools, kept)["metadata"]
                .as_object()
                .unwrap()
                .contains_key("registry_original_name")
        );
    }
    assert_eq!(tool(&tools, "finish")["provider_type"], "builtin");
    assert_eq!(
        tool(&tools, "echo")["metadata"]["plugin_id"],
        "examples.semantics_twin"
    );

    // The table shows where a renamed tool comes from.
    let (code, table, _) = fixture.run(&["tools"]);
    assert_eq!(code, 0);
    let row = table
        .lines()
        .find(|line| line.starts_with("plugin_examples_semantics_twin_whoami "))
        .unwrap_or_else(|| panic!("{table}"));
    assert!(
        row.contains("examples.semantics_twin (renamed from whoami)"),
        "{row}"
    );
    assert!(table.lines().next().unwrap().contains("ORIGIN"), "{table}");

    // Routing: each name reaches its own tool, and the result carries the name called.
    for (name, args, expected) in [
        ("whoami", json!({}), "examples.semantics"),
        (
            "plugin_examples_semantics_twin_whoami",
            json!({}),
            "examples.semantics_twin",
        ),
        (
            "plugin_examples_semantics_twin_finish",
            json!({}),
            "twin finished",
        ),
        ("echo", json!({"text": "hi"}), "twin: hi"),
    ] {
        let (code, result) = fixture.call(name, args, &[]);
        assert_eq!(code, 0, "{result}");
        assert_eq!(result["content"], expected);
        assert_eq!(result["tool_name"], name);
    }
    let (code, mcp_echo) = fixture.call("mcp_example_echo", json!({"text": "hi"}), &[]);
    assert_eq!(code, 0, "{mcp_echo}");
    assert_eq!(mcp_echo["metadata"]["server_name"], "example");
    assert!(
        mcp_echo["content"].as_str().unwrap().contains("hi"),
        "{mcp_echo}"
    );

    // tool_search finds a deferred renamed tool by what it does, under its new name.
    let (code, found) = fixture.call(
        "tool_search",
        json!({"query": "which plugin answered"}),
        &["--session-id", "s1", "--stream-id", "st1"],
    );
    assert_eq!(code, 0, "{found}");
    let found = found.to_string();
    assert!(
        found.contains("plugin_examples_semantics_twin_whoami"),
        "{found}"
    );

    // The model's definitions list it (deferred: in the reminder list) under the same name.
    let definitions = fixture.json(&["definitions", "--format", "openai", "--json"]);
    let text = definitions.to_string();
    assert!(
        text.contains("plugin_examples_semantics_twin_whoami"),
        "{text}"
    );
    assert!(text.contains("mcp_example_echo"), "{text}");

    // The MCP front lists and calls the same names.
    let mut front = McpStdio::start(&fixture);
    let deadline = Instant::now() + Duration::from_secs(30);
    let front_names = loop {
        let names = front.tool_names();
        if names.contains(&"plugin_examples_semantics_twin_whoami".to_owned())
            && names.contains(&"mcp_example_echo".to_owned())
        {
            break names;
        }
        assert!(Instant::now() < deadline, "{names:?}");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(
        front_names.contains(&"whoami".to_owned()),
        "{front_names:?}"
    );
    let answer = front.request(
        "tools/call",
        json!({"name": "plugin_examples_semantics_twin_whoami", "arguments": {}}),
    );
    assert_eq!(
        answer["result"]["content"][0]["text"], "examples.semantics_twin",
        "{answer}"
    );
    let stop = front.request("tools/call", json!({"name": "wrap_up", "arguments": {}}));
    assert_eq!(
        stop["result"]["_meta"]["maitool/stop_after_execution"], true,
        "{stop}"
    );
}
