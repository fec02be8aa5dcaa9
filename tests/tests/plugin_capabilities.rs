//! The privileged `component.*` capabilities over a real plugin runtime: real runner
//! processes register their components, and a plugin granted `component.*` lists and switches
//! them (called host-side as a runner's `cap.call` reaches the service).

use maitool_e2e::plugins::{Harness, RunnerSpec, fast_config};
use maitool_host::plugin::PluginSettings;
use maitool_protocol::wire::ErrorCode;
use maitool_protocol::{JsonObject, ToolAvailabilityContext};
use serde_json::{Value, json};

fn args(value: Value) -> JsonObject {
    value.as_object().cloned().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn component_capabilities_list_and_switch_real_plugins() {
    let admin = PluginSettings {
        capabilities: vec!["component.*".into()],
        ..PluginSettings::default()
    };
    let everything = PluginSettings {
        capabilities: vec!["*".into()],
        ..PluginSettings::default()
    };
    let harness = Harness::start(
        fast_config(),
        vec![
            RunnerSpec::new("dice", "maitool-example-dice").plugin("examples.dice", admin),
            RunnerSpec::new("notes", "maitool-example-notes").plugin("examples.notes", everything),
        ],
    )
    .await;
    let capabilities = harness.runtime.capabilities().clone();
    let call = |capability: &'static str, value: Value| {
        let capabilities = capabilities.clone();
        async move {
            capabilities
                .call("examples.dice", capability, &args(value))
                .await
        }
    };

    let loaded = call("component.list_loaded_plugins", json!({}))
        .await
        .unwrap();
    let mut names: Vec<&str> = loaded["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["examples.dice", "examples.notes"]);
    let registered = call("component.list_registered_plugins", json!({}))
        .await
        .unwrap();
    assert_eq!(registered["plugins"].as_array().unwrap().len(), 2);

    let all = call("component.get_all_plugins", json!({})).await.unwrap();
    let dice = &all["plugins"]["examples.dice"];
    assert_eq!(dice["version"], "1.0.0");
    let components: Vec<&str> = dice["components"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert!(components.contains(&"roll_dice"), "{components:?}");
    assert_eq!(dice["components"][0]["enabled"], true);

    let info = call(
        "component.get_plugin_info",
        json!({"plugin_name": "examples.notes"}),
    )
    .await
    .unwrap();
    assert_eq!(info["plugin"]["name"], "examples.notes");
    let missing = call(
        "component.get_plugin_info",
        json!({"plugin_name": "nobody"}),
    )
    .await
    .unwrap_err();
    assert_eq!(missing.code, ErrorCode::PluginNotFound);

    let listed = |harness: &Harness| {
        let registry = harness.registry.clone();
        async move {
            registry
                .list_tools(&ToolAvailabilityContext::default())
                .await
                .into_iter()
                .map(|spec| spec.name.clone())
                .collect::<Vec<_>>()
        }
    };
    assert!(listed(&harness).await.contains(&"calculate".to_owned()));
    let off = call("component.disable", json!({"name": "calculate", "component_type": "TOOL", "scope": "global", "stream_id": "", "version": ""})).await.unwrap();
    assert_eq!(off["success"], true);
    assert!(!listed(&harness).await.contains(&"calculate".to_owned()));
    call(
        "component.enable",
        json!({"name": "examples.dice.calculate", "component_type": "tool"}),
    )
    .await
    .unwrap();
    assert!(listed(&harness).await.contains(&"calculate".to_owned()));

    let wrong_type = call(
        "component.disable",
        json!({"name": "calculate", "component_type": "ACTION"}),
    )
    .await
    .unwrap_err();
    assert_eq!(wrong_type.code, ErrorCode::BadPayload);
    assert!(
        wrong_type.message.contains("component_type"),
        "{wrong_type:?}"
    );
    let scoped = call(
        "component.disable",
        json!({"name": "calculate", "component_type": "TOOL", "scope": "stream"}),
    )
    .await
    .unwrap_err();
    assert!(scoped.message.contains("scope"), "{scoped:?}");

    // `*` does not reach the privileged family.
    let denied = capabilities
        .call(
            "examples.notes",
            "component.list_loaded_plugins",
            &JsonObject::new(),
        )
        .await
        .unwrap_err();
    assert_eq!(denied.code, ErrorCode::CapabilityDenied);
    harness.stop().await;
}

/// The assembled host wires the capabilities to its store and configuration: `send.*` lands
/// where `message.*` reads, `config.get` answers `[bot]`, and a reload applies new `[bot]` and
/// `[llm]` sections to the next call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_host_serves_capabilities_from_its_store_and_reloaded_sections() {
    use maitool_host::{Host, HostConfig};

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("maitool.toml");
    let write = |bot: &str, llm: &str| {
        let text = format!(
            "[host]\ndata_dir = \"data\"\n[mcp]\nenable = false\n[builtin]\ndatabase = \"data/world.sqlite3\"\n{bot}\n{llm}\n"
        );
        std::fs::write(&path, text).unwrap();
    };
    write("[bot]\nnickname = \"Mai\"", "");
    let host = Host::start(HostConfig::load(&path).unwrap()).await.unwrap();
    let capabilities = host.plugins.capabilities().clone();
    capabilities.configure_plugin("t.plugin", vec!["*".into()], JsonObject::new());
    let call = |capability: &'static str, value: Value| {
        let capabilities = capabilities.clone();
        async move {
            capabilities
                .call("t.plugin", capability, &args(value))
                .await
        }
    };

    let sent = call(
        "send.text",
        json!({"text": "hello there", "stream_id": "s1"}),
    )
    .await
    .unwrap();
    let id = sent["message_id"].as_str().unwrap().to_owned();
    let read = call("message.get_by_id", json!({"message_id": id}))
        .await
        .unwrap();
    assert_eq!(read["message"]["processed_plain_text"], "hello there");
    assert_eq!(
        read["message"]["message_info"]["user_info"]["user_id"],
        "plugin:t.plugin"
    );
    let nickname = call("config.get", json!({"key": "bot.nickname"}))
        .await
        .unwrap();
    assert_eq!(nickname["value"], "Mai");
    let no_llm = call("llm.get_available_models", json!({}))
        .await
        .unwrap_err();
    assert!(no_llm.message.contains("no [llm] section"), "{no_llm:?}");

    write(
        "[bot]\nnickname = \"Mai 2\"",
        "[llm]\nbase_url = \"http://127.0.0.1:9/v1\"\nmodels = [\"small\"]",
    );
    host.reload().await.unwrap();
    let nickname = call("config.get", json!({"key": "bot.nickname"}))
        .await
        .unwrap();
    assert_eq!(nickname["value"], "Mai 2");
    let models = call("llm.get_available_models", json!({})).await.unwrap();
    assert_eq!(models["models"], json!(["small"]));
    host.shutdown().await;
}
