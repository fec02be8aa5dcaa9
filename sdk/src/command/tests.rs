use serde_json::json;

use crate::prelude::*;
use crate::testing::{PluginTest, TestError};

fn weather() -> Command {
    Command::new(
        "weather",
        "The weather of a city",
        |input: CommandInput| async move {
            let Some(city) = input.group("city") else {
                return Ok(CommandOutput::failed("which city?"));
            };
            input.send().text(format!("{city}: sunny")).await?;
            Ok(CommandOutput::reply(format!(
                "told {} about {city}",
                input.user_id()
            )))
        },
    )
    .pattern(r"^/weather(?:\s+(?P<city>\S+))?$")
    .alias("天气")
}

#[tokio::test]
async fn a_command_gets_its_groups_sends_and_answers() -> Result<(), TestError> {
    let plugin = Plugin::new("tests.weather", "1.0.0").command(weather().intercept());
    let t = PluginTest::new(plugin).grant("send.text").start().await?;
    let result = t.command("/weather Paris").await?;
    assert_eq!(result.name, "weather");
    assert_eq!(json!(result.matched_groups), json!({"city": "Paris"}));
    assert!(result.success);
    assert_eq!(result.reply.as_deref(), Some("told test-user about Paris"));
    assert!(result.intercepted, "declared intercept");
    assert_eq!(t.sent()[0].text, "Paris: sunny");
    // The group took no part: null, and the handler's own failure.
    let result = t.command("/weather").await?;
    assert_eq!(json!(result.matched_groups), json!({"city": null}));
    assert!(!result.success);
    assert_eq!(result.reply.as_deref(), Some("which city?"));
    // An alias matches with no groups.
    let result = t.command("天气怎么样").await?;
    assert!(result.matched_groups.is_empty());
    assert!(matches!(
        t.command("/weathers").await,
        Err(TestError::NoCommand { .. })
    ));
    Ok(())
}

#[tokio::test]
async fn the_message_goes_on_unless_the_command_or_its_answer_intercepts() -> Result<(), TestError>
{
    let stops = Command::new("stops", "", |_: CommandInput| async move {
        Ok(CommandOutput::silent().intercept())
    })
    .alias("/stop");
    let plugin = Plugin::new("tests.flow", "1.0.0")
        .command(weather())
        .command(stops);
    let t = PluginTest::new(plugin).grant("send.text").start().await?;
    assert!(!t.command("/weather Oslo").await?.intercepted);
    let stopped = t.command("/stop").await?;
    assert!(stopped.intercepted);
    assert_eq!(stopped.reply, None);
    Ok(())
}

#[tokio::test]
async fn an_error_or_a_panic_is_the_commands_failure_and_the_runner_goes_on()
-> Result<(), TestError> {
    let errs = Command::new("errs", "", |input: CommandInput| async move {
        input.kv().get::<String>("x").await?;
        Ok(CommandOutput::silent())
    })
    .alias("/err");
    let panics = Command::new("panics", "", |_: CommandInput| async move {
        if true {
            panic!("boom");
        }
        Ok(CommandOutput::silent())
    })
    .alias("/panic");
    let plugin = Plugin::new("tests.faults", "1.0.0")
        .command(errs)
        .command(panics);
    // kv.* not granted: the capability call fails, the handler's `?` returns it.
    let t = PluginTest::new(plugin).start().await?;
    let failed = t.command("/err").await?;
    assert!(!failed.success);
    assert!(
        failed
            .reply
            .as_deref()
            .unwrap_or_default()
            .contains("kv.get"),
        "{failed:?}"
    );
    let panicked = t.command("/panic").await?;
    assert!(!panicked.success);
    assert_eq!(
        panicked.reply.as_deref(),
        Some("command panics panicked: boom")
    );
    assert!(t.command("/err").await.is_ok(), "still serving");
    Ok(())
}

#[tokio::test]
async fn a_disabled_command_is_not_matched() -> Result<(), TestError> {
    let plugin = Plugin::new("tests.off", "1.0.0").command(weather().enabled(false));
    let t = PluginTest::new(plugin).start().await?;
    assert!(matches!(
        t.command("/weather Rome").await,
        Err(TestError::NoCommand { .. })
    ));
    let declaration = t.declaration("weather").unwrap();
    assert_eq!(declaration.component_type, "COMMAND");
    assert_eq!(declaration.metadata["aliases"], json!(["天气"]));
    Ok(())
}
