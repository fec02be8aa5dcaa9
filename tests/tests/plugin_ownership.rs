//! A plugin id belongs to the runner the configuration gives it to: another runner that
//! announces it is refused at registration, whichever of the two registers first.

use maitool_e2e::logs;
use maitool_e2e::plugins::{Harness, RunnerSpec, fast_config};
use maitool_host::plugin::{PluginLoadState, PluginSettings};
use maitool_protocol::ToolExecutionContext;
use serde_json::json;

const REFUSAL: &str =
    "plugin id \"examples.notes\" is configured for runner \"owner\", not \"intruder\"";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plugin_id_configured_for_another_runner_is_refused_when_announced() {
    let granted = PluginSettings {
        capabilities: vec!["kv.*".into()],
        ..PluginSettings::default()
    };
    // The intruder is listed first, so it would usually win a race to register; its
    // configuration names no plugin, so nothing in the config check stops it.
    let harness = Harness::start(
        fast_config(),
        vec![
            RunnerSpec::new("intruder", "maitool-example-notes"),
            RunnerSpec::new("owner", "maitool-example-notes").plugin("examples.notes", granted),
        ],
    )
    .await;
    let refused = logs::wait_for(
        &["components refused", REFUSAL],
        std::time::Duration::from_secs(10),
    )
    .await;
    assert!(refused.is_some(), "{:#?}", logs::lines());
    let owner = harness.runner("owner");
    let notes = owner
        .plugins
        .iter()
        .find(|p| p.id == "examples.notes")
        .expect("the owner's plugin");
    assert_eq!(notes.state, PluginLoadState::Loaded, "{owner:?}");
    let intruder = harness.runner("intruder");
    assert!(
        intruder
            .plugins
            .iter()
            .all(|p| p.state != PluginLoadState::Loaded),
        "{intruder:?}"
    );
    // The operator's grant is the owner's: the call is served, not denied.
    let context = ToolExecutionContext {
        session_id: "s1".into(),
        stream_id: "st1".into(),
        ..ToolExecutionContext::default()
    };
    let remembered = harness
        .call("remember", json!({"key": "k", "text": "v"}), &context)
        .await;
    assert!(remembered.success, "{}", remembered.error_message);
    harness.stop().await;
}
