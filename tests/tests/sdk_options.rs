//! The SDK's tool options through real runners: visibility (deferred by default, core tools
//! visible, hidden tools offered to no one), typed outputs tied to their declaration, typed
//! configuration updates, required Action parameters, and the typed kv and send helpers with
//! and without grants.

mod ops_support;

use std::collections::BTreeMap;

use maitool_e2e::plugins::{Harness, RunnerSpec, fast_config};
use maitool_e2e::workspace_bin;
use maitool_host::plugin::{PluginSettings, ResolvedRunner};
use maitool_protocol::{ToolAvailabilityContext, ToolExecutionContext, ToolSpec, Visibility};
use ops_support::Fixture;
use serde_json::{Value, json};

fn ctx() -> ToolExecutionContext {
    ToolExecutionContext {
        session_id: "s1".into(),
        stream_id: "st1".into(),
        ..ToolExecutionContext::default()
    }
}

async fn listed(harness: &Harness) -> Vec<std::sync::Arc<ToolSpec>> {
    harness
        .registry
        .list_tools(&ToolAvailabilityContext::default())
        .await
}

fn visibility_of(tools: &[std::sync::Arc<ToolSpec>], name: &str) -> Option<Visibility> {
    tools
        .iter()
        .find(|tool| tool.name == name)
        .map(|tool| Visibility::of_spec(tool))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plugin_tools_are_deferred_unless_core_and_hidden_ones_are_offered_to_no_one() {
    let harness = Harness::start(
        fast_config(),
        vec![
            RunnerSpec::new("options", "maitool-example-options"),
            RunnerSpec::new("legacy", "maitool-example-legacy"),
        ],
    )
    .await;
    let tools = listed(&harness).await;
    // MaiBot's rule: a plugin tool is deferred unless it is a core tool.
    assert_eq!(visibility_of(&tools, "clock"), Some(Visibility::Deferred));
    assert_eq!(
        visibility_of(&tools, "pinned_clock"),
        Some(Visibility::Visible)
    );
    // Actions too: `greet` declares nothing, `wave` is marked core.
    assert_eq!(visibility_of(&tools, "greet"), Some(Visibility::Deferred));
    assert_eq!(visibility_of(&tools, "wave"), Some(Visibility::Visible));
    // A hidden tool is not listed at all.
    assert_eq!(visibility_of(&tools, "retired_clock"), None);

    // A deferred tool is still callable (MaiBot runs any listed tool it is asked for).
    let deferred = harness.call("clock", json!({}), &ctx()).await;
    assert!(deferred.success, "{deferred:?}");
    assert!(deferred.content.starts_with("clock: "), "{deferred:?}");
    // A hidden one says so, rather than "not found".
    let hidden = harness.call("retired_clock", json!({}), &ctx()).await;
    assert!(!hidden.success);
    assert!(
        hidden.error_message.starts_with(
            "tool retired_clock is hidden: plugin examples.options declares it with visibility hidden"
        ),
        "{}",
        hidden.error_message
    );
    let missing = harness.call("no_such_clock", json!({}), &ctx()).await;
    assert_eq!(missing.error_message, "tool not found: no_such_clock");
    harness.stop().await;
}

#[test]
fn the_model_sees_core_tools_the_reminder_lists_deferred_ones_and_maitool_call_refuses_hidden_ones()
{
    let fixture = Fixture::new(&["options"], "", "");
    let definitions = fixture.json(&["definitions", "--format", "maibot", "--json"]);
    let names = |value: &Value| -> Vec<String> {
        value
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| tool["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let exposed = names(&definitions["tools"]);
    let reminded = names(&definitions["deferred_reminder"]["tools"]);
    assert!(exposed.contains(&"pinned_clock".to_owned()), "{exposed:?}");
    assert!(exposed.contains(&"wave".to_owned()), "{exposed:?}");
    assert!(!exposed.contains(&"clock".to_owned()), "{exposed:?}");
    assert!(reminded.contains(&"clock".to_owned()), "{reminded:?}");
    let hidden = "retired_clock".to_owned();
    assert!(!exposed.contains(&hidden), "{exposed:?}");
    assert!(!reminded.contains(&hidden), "{reminded:?}");

    // An operator's direct call of a hidden tool is refused with the reason.
    let (code, out, err) = fixture.maitool(&["call", "retired_clock", "--json"]);
    assert_eq!(code, 1, "{out}{err}");
    let result: Value = serde_json::from_str(&out).unwrap();
    assert!(
        result["error_message"]
            .as_str()
            .unwrap()
            .starts_with("tool retired_clock is hidden: "),
        "{out}"
    );
    let (code, out, err) = fixture.maitool(&["call", "clock", "--json"]);
    assert_eq!(code, 0, "a deferred tool is callable directly: {out}{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_typed_output_must_be_the_declared_output_type() {
    let harness = Harness::start(
        fast_config(),
        vec![RunnerSpec::new("options", "maitool-example-options")],
    )
    .await;
    let tools = listed(&harness).await;
    let stats = tools.iter().find(|tool| tool.name == "stats").unwrap();
    assert_eq!(
        stats.output_schema.as_ref().unwrap()["properties"]["count"]["type"],
        "integer"
    );
    let ok = harness.call("stats", json!({}), &ctx()).await;
    assert!(ok.success, "{ok:?}");
    assert_eq!(ok.structured_content, Some(json!({"count": 3})));

    let wrong = harness.call("stats_wrong_type", json!({}), &ctx()).await;
    assert!(!wrong.success);
    assert!(
        wrong
            .error_message
            .starts_with("tool stats_wrong_type returned output of type ")
            && wrong
                .error_message
                .contains("Label but declares output type ")
            && wrong.error_message.ends_with("Stats"),
        "{}",
        wrong.error_message
    );
    let undeclared = harness.call("stats_undeclared", json!({}), &ctx()).await;
    assert!(!undeclared.success);
    assert!(
        undeclared
            .error_message
            .contains("Stats but declares no output type: add .output::<"),
        "{}",
        undeclared.error_message
    );
    harness.stop().await;
}

fn greeting_settings(greeting: &str) -> PluginSettings {
    let mut config = serde_json::Map::new();
    config.insert("greeting".into(), greeting.into());
    PluginSettings {
        config,
        ..PluginSettings::default()
    }
}

/// The options runner as the harness launched it, with another greeting: only the plugin's
/// configuration differs, so the host delivers it through `on_config_update`.
fn options_runner(greeting: &str) -> ResolvedRunner {
    ResolvedRunner {
        plugins: BTreeMap::from([("examples.options".to_owned(), greeting_settings(greeting))]),
        ..ResolvedRunner::maitool("options", workspace_bin("maitool-example-options"))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_config_update_gets_the_typed_config_and_a_refusal_keeps_the_old_one() {
    let harness = Harness::start(
        fast_config(),
        vec![
            RunnerSpec::new("options", "maitool-example-options")
                .plugin("examples.options", greeting_settings("hello")),
        ],
    )
    .await;
    let greeting = |harness: &Harness| {
        let registry = harness.registry.clone();
        async move {
            let invocation = maitool_protocol::ToolInvocation::new("greeting", Default::default());
            let result = registry.invoke(invocation, &ctx()).await;
            assert!(result.success, "{result:?}");
            result.structured_content.unwrap()
        }
    };
    assert_eq!(greeting(&harness).await["greeting"], "hello");

    let report = harness.runtime.apply(vec![options_runner("hi")]).await;
    assert_eq!(
        report.reconfigured,
        ["options/examples.options"],
        "{report:?}"
    );
    let seen = greeting(&harness).await;
    assert_eq!(seen["greeting"], "hi");
    let last = seen["last_update"].as_str().unwrap();
    assert!(
        last.starts_with("examples.options got hi (reload-"),
        "{last}"
    );

    // The hook refuses: the host reports it and the plugin keeps the old configuration.
    let report = harness.runtime.apply(vec![options_runner("refuse")]).await;
    assert_eq!(report.rejected.len(), 1, "{report:?}");
    assert!(
        report.rejected[0].contains("the greeting `refuse` is refused"),
        "{report:?}"
    );
    assert_eq!(greeting(&harness).await["greeting"], "hi");

    // A configuration that does not validate never reaches the hook: it is invalid, so the
    // plugin's tools pause (MaiBot's config_error) while the plugin keeps the old values.
    let report = harness.runtime.apply(vec![options_runner(" ")]).await;
    assert!(report.rejected.is_empty(), "{report:?}");
    assert!(
        report.paused.first().is_some_and(|reason| reason
            == "options/examples.options: invalid configuration: greeting must not be empty"),
        "{report:?}"
    );
    let invocation = maitool_protocol::ToolInvocation::new("greeting", Default::default());
    let paused = harness.registry.invoke(invocation, &ctx()).await;
    assert_eq!(
        paused.metadata["error_code"], "E_PLUGIN_CONFIG_INVALID",
        "{paused:?}"
    );
    // A valid one resumes it, and the hook sees it.
    let report = harness.runtime.apply(vec![options_runner("hey")]).await;
    assert_eq!(
        report.reconfigured,
        ["options/examples.options"],
        "{report:?}"
    );
    let seen = greeting(&harness).await;
    assert_eq!(seen["greeting"], "hey");
    assert_ne!(seen["last_update"].as_str().unwrap(), last);
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_action_refuses_a_call_without_its_required_parameter() {
    let harness = Harness::start(
        fast_config(),
        vec![RunnerSpec::new("legacy", "maitool-example-legacy")],
    )
    .await;
    let tools = listed(&harness).await;
    let greet = tools.iter().find(|tool| tool.name == "greet").unwrap();
    assert_eq!(
        greet.parameters_schema.as_ref().unwrap()["required"],
        json!(["name"])
    );
    let missing = harness
        .call("greet", json!({"mood": "gladly"}), &ctx())
        .await;
    assert!(!missing.success);
    assert!(
        missing
            .error_message
            .starts_with("invalid arguments for tool greet: ")
            && missing.error_message.contains("name"),
        "{}",
        missing.error_message
    );
    let greeted = harness.call("greet", json!({"name": "Bo"}), &ctx()).await;
    assert!(greeted.success, "{greeted:?}");
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typed_kv_and_send_helpers_work_when_granted_and_name_the_capability_when_not() {
    let everything = PluginSettings {
        capabilities: vec!["kv.*".into(), "send.text".into()],
        ..PluginSettings::default()
    };
    let harness = Harness::start(
        fast_config(),
        vec![
            RunnerSpec::new("notes", "maitool-example-notes").plugin("examples.notes", everything),
        ],
    )
    .await;
    for (key, text) in [("milk", "buy milk"), ("mail", "post it"), ("tea", "green")] {
        let stored = harness
            .call("remember", json!({"key": key, "text": text}), &ctx())
            .await;
        assert!(stored.success, "{stored:?}");
    }
    let recalled = harness.call("recall", json!({"key": "milk"}), &ctx()).await;
    assert_eq!(recalled.content, "buy milk");
    let listed = harness
        .call("list_notes", json!({"prefix": "m"}), &ctx())
        .await;
    assert_eq!(
        listed.structured_content,
        Some(json!({"keys": ["mail", "milk"]}))
    );
    let forgot = harness.call("forget", json!({"key": "milk"}), &ctx()).await;
    assert_eq!(forgot.content, "forgot milk");
    let again = harness.call("forget", json!({"key": "milk"}), &ctx()).await;
    assert_eq!(again.content, "there was no note named milk");
    let gone = harness.call("recall", json!({"key": "milk"}), &ctx()).await;
    assert_eq!(gone.error_message, "no note named milk");
    let sent = harness
        .call("announce", json!({"text": "tea time"}), &ctx())
        .await;
    assert!(sent.success, "{sent:?}");
    let message_id = sent.structured_content.unwrap()["message_id"].clone();
    let delivered = harness.sink.messages();
    let last = delivered.last().unwrap();
    assert_eq!(
        (last.stream_id.as_str(), last.text.as_str()),
        ("st1", "tea time")
    );
    assert!(
        message_id.as_str().is_some_and(|id| !id.is_empty()),
        "{message_id}"
    );
    harness.stop().await;

    // Only kv.get granted: reading works, writing and listing are denied by name.
    let reader = PluginSettings {
        capabilities: vec!["kv.get".into()],
        ..PluginSettings::default()
    };
    let harness = Harness::start(
        fast_config(),
        vec![RunnerSpec::new("notes", "maitool-example-notes").plugin("examples.notes", reader)],
    )
    .await;
    let read = harness.call("recall", json!({"key": "tea"}), &ctx()).await;
    assert_eq!(read.error_message, "no note named tea", "{read:?}");
    for (tool, args, capability) in [
        ("remember", json!({"key": "k", "text": "v"}), "kv.set"),
        ("list_notes", json!({}), "kv.list"),
        ("forget", json!({"key": "k"}), "kv.delete"),
        ("announce", json!({"text": "x"}), "send.text"),
    ] {
        let denied = harness.call(tool, args, &ctx()).await;
        assert!(!denied.success, "{tool}: {denied:?}");
        assert_eq!(
            denied.error_message,
            format!(
                "[E_CAPABILITY_DENIED] plugin examples.notes is not granted capability {capability}"
            ),
            "{tool}"
        );
    }
    harness.stop().await;
}
