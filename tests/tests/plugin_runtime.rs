//! The plugin runtime end to end: real runner processes, real sockets.

use maitool_e2e::plugins::{Harness, RunnerSpec, fast_config};
use maitool_host::plugin::{PluginSettings, RunnerState};
use maitool_protocol::{ContentType, ToolAvailabilityContext, ToolExecutionContext};
use serde_json::json;

fn group_ctx() -> ToolExecutionContext {
    ToolExecutionContext {
        session_id: "s1".into(),
        stream_id: "st1".into(),
        reasoning: "the user asked".into(),
        is_group_chat: Some(true),
        group_id: "g1".into(),
        user_id: "u1".into(),
        platform: "qq".into(),
        ..ToolExecutionContext::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_from_two_runners_and_a_legacy_action_are_listed_and_called() {
    let harness = Harness::start(
        fast_config(),
        vec![
            RunnerSpec::new("dice", "maitool-example-dice"),
            RunnerSpec::new("legacy", "maitool-example-legacy"),
            RunnerSpec::new("media", "maitool-example-media"),
        ],
    )
    .await;
    for name in ["dice", "legacy", "media"] {
        assert_eq!(
            harness.runner(name).state,
            RunnerState::Ready,
            "{:?}",
            harness.runner(name)
        );
    }
    let tools = harness
        .registry
        .list_tools(&ToolAvailabilityContext::default())
        .await;
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    for expected in [
        "roll_dice",
        "calculate",
        "echo",
        "greet",
        "render_badge",
        "describe_numbers",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }
    let greet = tools.iter().find(|t| t.name == "greet").unwrap();
    assert_eq!(greet.metadata["legacy_action"], true);
    assert_eq!(greet.metadata["invoke_method"], "plugin.invoke_action");
    assert_eq!(
        greet.parameters_schema.as_ref().unwrap()["properties"]["name"]["type"],
        "string"
    );
    let roll = tools.iter().find(|t| t.name == "roll_dice").unwrap();
    assert_eq!(roll.provider_name, "plugin_runtime");
    assert_eq!(roll.metadata["plugin_id"], "examples.dice");
    assert!(roll.parameters_schema.as_ref().unwrap()["properties"]["sides"].is_object());

    let ctx = group_ctx();
    let echo = harness.call("echo", json!({"text": "hello"}), &ctx).await;
    assert!(echo.success, "{echo:?}");
    assert_eq!(echo.content, "hello");
    let seen = echo.structured_content.unwrap();
    assert_eq!(seen["session_id"], "s1");
    assert_eq!(seen["stream_id"], "st1");
    assert_eq!(seen["chat_id"], "st1");
    assert_eq!(seen["group_id"], "g1");
    assert_eq!(seen["user_id"], "u1");
    assert_eq!(seen["platform"], "qq");
    // A context key the tool declares as a parameter is filled in from the context.
    assert_eq!(seen["platform_argument"], "qq");
    assert_eq!(seen["is_group_chat"], true);
    assert_eq!(seen["reasoning"], "the user asked");
    assert_eq!(seen["call_id"], "call-1");

    let sum = harness
        .call("calculate", json!({"a": 2, "b": 40, "op": "add"}), &ctx)
        .await;
    assert_eq!(sum.content, "42");
    assert_eq!(sum.structured_content.unwrap()["value"], 42.0);

    let divide = harness
        .call("calculate", json!({"a": 1, "b": 0, "op": "divide"}), &ctx)
        .await;
    assert!(!divide.success);
    assert_eq!(divide.error_message, "division by zero");

    let bad_args = harness
        .call("calculate", json!({"a": "x", "b": 1, "op": "add"}), &ctx)
        .await;
    assert!(!bad_args.success);
    assert!(
        bad_args
            .error_message
            .starts_with("invalid arguments for tool calculate"),
        "{}",
        bad_args.error_message
    );

    let greet = harness
        .call("greet", json!({"name": "Ann", "mood": "cheerfully"}), &ctx)
        .await;
    assert!(greet.success, "{greet:?}");
    assert_eq!(
        greet.content,
        "greeted Ann cheerfully in st1 (reasoning: the user asked)"
    );
    let no_name = harness.call("greet", json!({}), &ctx).await;
    assert!(!no_name.success);

    let badge = harness
        .call(
            "render_badge",
            json!({"width": 4, "height": 3, "colour": "#ff0000"}),
            &ctx,
        )
        .await;
    assert!(badge.success, "{badge:?}");
    let image = &badge.content_items[0];
    assert_eq!(image.content_type, ContentType::Image);
    assert_eq!(image.mime_type, "image/png");
    assert_eq!(&image.data.0[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(
        u32::from_be_bytes(image.data.0[16..20].try_into().unwrap()),
        4
    );
    assert_eq!(badge.structured_content.unwrap()["height"], 3);

    let stats = harness
        .call(
            "describe_numbers",
            json!({"numbers": [1.0, 2.0, 6.0]}),
            &ctx,
        )
        .await;
    assert_eq!(
        stats.structured_content.unwrap(),
        json!({"count": 3, "min": 1.0, "max": 6.0, "mean": 3.0})
    );

    let unknown = harness.call("no_such_tool", json!({}), &ctx).await;
    assert!(!unknown.success);
    assert_eq!(unknown.error_message, "tool not found: no_such_tool");
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_plugin_config_pauses_that_plugin_only() {
    let mut bad = PluginSettings::default();
    bad.config.insert("max_dice".into(), json!(0));
    let harness = Harness::start(
        fast_config(),
        vec![
            RunnerSpec::new("dice", "maitool-example-dice").plugin("examples.dice", bad),
            RunnerSpec::new("legacy", "maitool-example-legacy"),
        ],
    )
    .await;
    let dice = harness.runner("dice");
    assert_eq!(dice.state, RunnerState::Ready);
    let plugin = dice
        .plugins
        .iter()
        .find(|p| p.id == "examples.dice")
        .unwrap();
    // MaiBot's config_error state: loaded, its tools paused until a valid configuration.
    assert_eq!(
        plugin.state,
        maitool_host::plugin::PluginLoadState::ConfigError
    );
    let reason = plugin.reason.clone().unwrap();
    assert!(
        reason.contains("invalid configuration")
            && reason.contains("max_dice must be between 1 and 1000"),
        "{reason}"
    );
    let result = harness
        .call("roll_dice", json!({"sides": 6}), &group_ctx())
        .await;
    assert_eq!(result.metadata["error_code"], "E_PLUGIN_CONFIG_INVALID");
    assert!(
        result
            .error_message
            .starts_with("tool roll_dice is paused: plugin examples.dice has an invalid configuration (max_dice must be between 1 and 1000"),
        "{}",
        result.error_message
    );
    assert!(
        harness
            .call("greet", json!({"name": "x"}), &group_ctx())
            .await
            .success
    );

    let mut unknown_key = PluginSettings::default();
    unknown_key.config.insert("max_dize".into(), json!(3));
    let harness2 = Harness::start(
        fast_config(),
        vec![RunnerSpec::new("dice2", "maitool-example-dice").plugin("examples.dice", unknown_key)],
    )
    .await;
    let plugin = harness2
        .runner("dice2")
        .plugins
        .into_iter()
        .find(|p| p.id == "examples.dice")
        .unwrap();
    assert!(plugin.reason.unwrap().contains("unknown field `max_dize`"));
    harness.stop().await;
    harness2.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_plugin_failing_on_load_leaves_its_sibling_serving() {
    let harness = Harness::start(
        fast_config(),
        vec![
            RunnerSpec::new("mixed", "maitool-example-misbehaving").env("MISBEHAVE_FAIL_LOAD", "1"),
        ],
    )
    .await;
    let status = harness.runner("mixed");
    let failed = status
        .plugins
        .iter()
        .find(|p| p.id == "examples.fails_on_load")
        .unwrap();
    assert_eq!(
        failed.reason.as_deref(),
        Some("on_load failed: deliberate on_load failure")
    );
    assert_eq!(
        harness
            .call("never_listed", json!({}), &group_ctx())
            .await
            .error_message,
        "tool not found: never_listed"
    );
    assert_eq!(
        harness
            .call("echo", json!({"text": "ok"}), &group_ctx())
            .await
            .content,
        "ok"
    );
    harness.stop().await;
}
