//! `component.get_plugin_config_schema` and `component.update_plugin_config`, called as a
//! privileged plugin calls them, on a host started from a real file: the same code as the web
//! console's form (checked, saved with the file's comments kept, applied live; an invalid
//! value changes nothing).

use std::sync::Arc;

use maitool_e2e::workspace_bin;
use maitool_host::plugin_config::PluginConfigs;
use maitool_host::{Host, HostConfig};
use maitool_protocol::{ToolExecutionContext, ToolInvocation};
use serde_json::{Value, json};

async fn roll(host: &Host, count: u32) -> maitool_protocol::ToolExecutionResult {
    let args = json!({"count": count, "sides": 6});
    host.registry
        .invoke(
            ToolInvocation::new("roll_dice", args.as_object().unwrap().clone()),
            &ToolExecutionContext::default(),
        )
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_privileged_plugin_reads_a_schema_and_updates_a_configuration_through_the_consoles_code()
{
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("maitool.toml");
    let text = format!(
        r#"[host]
enable_builtin = false
data_dir = "data"

# The dice plugin, allowed to manage plugins.
[[runners]]
name = "dice"
executable = "{}"

[runners.plugins."examples.dice"]
capabilities = ["component.*"]

[runners.plugins."examples.dice".config]
max_dice = 50 # generous
"#,
        workspace_bin("maitool-example-dice").display()
    );
    std::fs::write(&config, &text).unwrap();
    let host = Arc::new(
        Host::start(HostConfig::load(&config).unwrap())
            .await
            .unwrap(),
    );
    let _configs = PluginConfigs::attach(&host);
    let capabilities = host.plugins.capabilities().clone();
    let call = |capability: &'static str, args: Value| {
        let capabilities = capabilities.clone();
        async move {
            capabilities
                .call("examples.dice", capability, args.as_object().unwrap())
                .await
                .unwrap()
        }
    };

    let schema = call(
        "component.get_plugin_config_schema",
        json!({"plugin_name": "examples.dice"}),
    )
    .await;
    assert_eq!(schema["success"], true, "{schema}");
    assert!(
        schema["schema"]["properties"]["max_dice"].is_object(),
        "{schema}"
    );
    assert_eq!(schema["default_config"]["max_dice"], 20, "{schema}");
    let info = call(
        "component.get_plugin_info",
        json!({"plugin_name": "examples.dice"}),
    )
    .await;
    assert_eq!(info["plugin"]["config_schema"], schema["schema"]);

    assert!(roll(&host, 5).await.success);
    let invalid = call(
        "component.update_plugin_config",
        json!({"plugin_name": "examples.dice", "key": "max_dice", "value": -1}),
    )
    .await;
    assert_eq!(invalid["success"], false, "{invalid}");
    assert!(
        invalid["error"]
            .as_str()
            .unwrap()
            .contains("-1 is less than the minimum of 0"),
        "{invalid}"
    );
    assert_eq!(std::fs::read_to_string(&config).unwrap(), text);

    let refused = call(
        "component.update_plugin_config",
        json!({"plugin_name": "examples.dice", "key": "max_dice", "value": 0}),
    )
    .await;
    assert_eq!(refused["success"], false, "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .contains("max_dice must be between 1 and 1000"),
        "{refused}"
    );
    assert_eq!(std::fs::read_to_string(&config).unwrap(), text);
    assert!(
        roll(&host, 5).await.success,
        "the old configuration is back"
    );

    let updated = call(
        "component.update_plugin_config",
        json!({"plugin_name": "examples.dice", "key": "max_dice", "value": 3}),
    )
    .await;
    assert_eq!(updated["success"], true, "{updated}");
    assert_eq!(
        std::fs::read_to_string(&config).unwrap(),
        text.replace("max_dice = 50 # generous", "max_dice = 3 # generous")
    );
    let over = roll(&host, 5).await;
    assert!(!over.success, "{over:?}");
    assert!(
        over.error_message.contains("count must be between 1 and 3"),
        "{over:?}"
    );
    host.shutdown().await;
}
