//! The dice plugin, run in-process by the SDK's test harness (the real runner).

use maitool_sdk::json;
use maitool_sdk::testing::{PluginTest, TestError};

use super::dice;

#[tokio::test]
async fn a_seeded_roll_is_reproducible_and_adds_up() -> Result<(), TestError> {
    let t = PluginTest::new(dice())
        .config(json!({ "seed": 42 }))
        .start()
        .await?;
    let first = t
        .call("roll_dice", json!({ "sides": 6, "count": 3 }))
        .await?;
    assert!(first.success, "{first:?}");
    let rolled = first.structured_content.clone().unwrap();
    let faces: Vec<u64> = serde_faces(&rolled["faces"]);
    assert_eq!(faces.len(), 3);
    assert!(faces.iter().all(|face| (1..=6).contains(face)), "{faces:?}");
    assert_eq!(rolled["total"], faces.iter().sum::<u64>());
    assert_eq!(
        first.content,
        format!("rolled {faces:?}, total {}", faces.iter().sum::<u64>())
    );
    // Every call seeds from the configuration: the same seed gives the same faces.
    let second = t
        .call("roll_dice", json!({ "sides": 6, "count": 3 }))
        .await?;
    assert_eq!(second.structured_content, first.structured_content);
    Ok(())
}

fn serde_faces(value: &maitool_sdk::Value) -> Vec<u64> {
    value
        .as_array()
        .expect("faces is a list")
        .iter()
        .map(|face| face.as_u64().expect("a face is a number"))
        .collect()
}

#[tokio::test]
async fn rolls_outside_the_limits_fail_with_the_reason() -> Result<(), TestError> {
    let t = PluginTest::new(dice())
        .config(json!({ "max_dice": 3 }))
        .start()
        .await?;
    let one_side = t.call("roll_dice", json!({ "sides": 1 })).await?;
    assert!(!one_side.success);
    assert_eq!(
        one_side.error_message,
        "sides must be between 2 and 1000, got 1"
    );
    let too_many = t
        .call("roll_dice", json!({ "sides": 6, "count": 4 }))
        .await?;
    assert_eq!(
        too_many.error_message,
        "count must be between 1 and 3, got 4"
    );
    // `deny_unknown_fields` makes the schema closed: the call is refused before the plugin.
    let typo = t
        .call("roll_dice", json!({ "sides": 6, "cuont": 2 }))
        .await?;
    assert!(
        typo.error_message
            .starts_with("invalid arguments for tool roll_dice:"),
        "{typo:?}"
    );
    Ok(())
}

#[tokio::test]
async fn a_configuration_out_of_range_fails_the_load() {
    let err = PluginTest::new(dice())
        .config(json!({ "max_dice": 0 }))
        .start()
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("max_dice must be between 1 and 1000, got 0"),
        "{err}"
    );
}

#[tokio::test]
async fn calculate_computes_and_refuses_division_by_zero() -> Result<(), TestError> {
    let t = PluginTest::new(dice()).start().await?;
    let product = t
        .call("calculate", json!({ "a": 6, "b": 7, "op": "multiply" }))
        .await?;
    assert_eq!(product.content, "42");
    assert_eq!(product.structured_content, Some(json!({ "value": 42.0 })));
    let by_zero = t
        .call("calculate", json!({ "a": 1, "b": 0, "op": "divide" }))
        .await?;
    assert!(!by_zero.success);
    assert_eq!(by_zero.error_message, "division by zero");
    let unknown_op = t
        .call("calculate", json!({ "a": 1, "b": 2, "op": "power" }))
        .await?;
    assert!(!unknown_op.success);
    assert!(unknown_op.error_message.contains("/op"), "{unknown_op:?}");
    Ok(())
}

#[tokio::test]
async fn echo_sees_the_chosen_chat_context() -> Result<(), TestError> {
    let t = PluginTest::new(dice())
        .group("group-7")
        .user_id("user-3")
        .stream_id("stream-5")
        .start()
        .await?;
    let echoed = t.call("echo", json!({ "text": "hi" })).await?;
    assert_eq!(echoed.content, "hi");
    let seen = echoed.structured_content.unwrap();
    assert_eq!(seen["group_id"], "group-7");
    assert_eq!(seen["user_id"], "user-3");
    assert_eq!(seen["stream_id"], "stream-5");
    assert_eq!(seen["is_group_chat"], true);
    // `platform` is a declared parameter: filled from the context, as the host does.
    assert_eq!(seen["platform_argument"], "test");
    Ok(())
}
