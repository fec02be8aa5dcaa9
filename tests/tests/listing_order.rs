//! The order plugin tools are listed in, and who keeps a name two plugins declare, follow
//! the configuration, not which runner happened to register first: the same after every
//! start, whatever the runners' timing.

use std::time::Duration;

use maitool_e2e::plugins::{Harness, RunnerSpec, fast_config};
use maitool_protocol::ToolAvailabilityContext;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_runner_configured_first_keeps_a_shared_name_though_it_registers_last() {
    // Both declare `echo`; the one configured first starts 800 ms late.
    let runners = vec![
        RunnerSpec::new("late", "maitool-example-misbehaving")
            .env("MISBEHAVE_START_DELAY_MS", "800"),
        RunnerSpec::new("dice", "maitool-example-dice"),
    ];
    let harness = Harness::start(fast_config(), runners).await;
    let listed = |tools: &[std::sync::Arc<maitool_protocol::ToolSpec>]| -> Vec<(String, String)> {
        tools
            .iter()
            .map(|spec| {
                (
                    spec.name.clone(),
                    spec.metadata["plugin_id"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned(),
                )
            })
            .collect()
    };
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    let tools = loop {
        let tools = harness
            .registry
            .list_tools(&ToolAvailabilityContext::default())
            .await;
        if tools
            .iter()
            .any(|spec| spec.name == "plugin_examples_dice_echo")
        {
            break tools;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the late runner's echo never took the name: {:?}",
            listed(&tools)
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let tools = listed(&tools);
    let echo = tools.iter().find(|(name, _)| name == "echo").unwrap();
    assert_eq!(echo.1, "examples.misbehaving", "{tools:?}");
    // The late runner's plugins come first in the listing, as in the configuration.
    let first_dice = tools
        .iter()
        .position(|(_, plugin)| plugin == "examples.dice")
        .unwrap();
    let last_late = tools
        .iter()
        .rposition(|(_, plugin)| plugin.starts_with("examples.misbehaving"))
        .unwrap();
    assert!(last_late < first_dice, "{tools:?}");
    harness.stop().await;
}
