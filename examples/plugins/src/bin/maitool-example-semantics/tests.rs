//! The semantics plugins, run in-process by the SDK's test harness (the real runner).

use maitool_sdk::json;
use maitool_sdk::testing::{PluginTest, TestError, ToolExecutionContext};

use super::semantics;

#[tokio::test]
async fn a_telegram_tool_runs_on_telegram_only() -> Result<(), TestError> {
    let t = PluginTest::new(semantics()).start().await?;
    let declared = t.declaration("send_sticker").unwrap();
    assert_eq!(declared.metadata["platforms"], json!(["Telegram"]));

    let telegram = ToolExecutionContext {
        platform: "telegram".into(),
        ..ToolExecutionContext::default()
    };
    let sent = t
        .call_in("send_sticker", json!({"set": "cats"}), telegram)
        .await?;
    assert!(sent.success, "{sent:?}");
    assert_eq!(sent.content, "sent cats on telegram");

    let qq = ToolExecutionContext {
        platform: "qq".into(),
        ..ToolExecutionContext::default()
    };
    let refused = t
        .call_in("send_sticker", json!({"set": "cats"}), qq)
        .await?;
    assert!(!refused.success);
    assert_eq!(refused.metadata["error_code"], "E_PLATFORM_MISMATCH");
    assert!(
        refused
            .error_message
            .contains("offers it only on telegram, and this call is on qq"),
        "{refused:?}"
    );
    Ok(())
}

#[tokio::test]
async fn stop_after_execution_comes_from_the_result_or_the_declaration() -> Result<(), TestError> {
    let t = PluginTest::new(semantics()).start().await?;
    let wrapped = t.call("wrap_up", json!({})).await?;
    assert!(
        wrapped.success && wrapped.stop_after_execution,
        "{wrapped:?}"
    );
    let farewell = t.call("farewell", json!({})).await?;
    assert!(
        farewell.success && farewell.stop_after_execution,
        "{farewell:?}"
    );
    assert_eq!(
        t.declaration("farewell").unwrap().metadata["stop_after_execution"],
        json!(true)
    );
    let plain = t.call("whoami", json!({})).await?;
    assert!(!plain.stop_after_execution, "{plain:?}");
    Ok(())
}

#[tokio::test]
async fn an_invalid_configuration_fails_the_start_and_a_valid_update_is_applied()
-> Result<(), TestError> {
    let refused = PluginTest::new(semantics())
        .config(json!({"times": 9}))
        .start()
        .await
        .unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("invalid configuration: times must be between 1 and 5, got 9"),
        "{refused}"
    );

    let t = PluginTest::new(semantics())
        .config(json!({"greeting": "hi", "times": 2}))
        .start()
        .await?;
    assert_eq!(t.call("greet", json!({})).await?.content, "hi hi");
    let invalid = t.update_config(json!({"times": 0})).await.unwrap_err();
    assert!(
        invalid
            .to_string()
            .contains("times must be between 1 and 5, got 0"),
        "{invalid}"
    );
    // The plugin kept what it ran with.
    assert_eq!(t.call("greet", json!({})).await?.content, "hi hi");
    t.update_config(json!({"greeting": "yo", "times": 3}))
        .await?;
    assert_eq!(t.call("greet", json!({})).await?.content, "yo yo yo");
    Ok(())
}
