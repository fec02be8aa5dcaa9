//! The trip plugin run in-process, with the test host answering `api.call` as the host does.

use maitool_sdk::json;
use maitool_sdk::testing::{PluginTest, TestError};

use super::trip;

#[tokio::test]
async fn a_failed_api_call_is_reported_not_raised() -> Result<(), TestError> {
    let t = PluginTest::new(trip())
        .grant("api.call")
        .serve("api.call", |args| {
            Ok(json!({"success": false, "error": format!("API {} not found", args["api_name"].as_str().unwrap())}))
        })
        .start()
        .await?;
    let result = t.call("trip_api", json!({"api_name": "nowhere.x"})).await?;
    assert!(result.success, "{result:?}");
    assert_eq!(
        result.structured_content,
        Some(json!({"ok": false, "error": "API nowhere.x not found"}))
    );
    Ok(())
}

#[tokio::test]
async fn without_the_grant_the_call_fails_with_the_denial() -> Result<(), TestError> {
    let t = PluginTest::new(trip()).start().await?;
    let result = t.call("trip_length", json!({"legs_km": [1.0]})).await?;
    assert!(!result.success);
    assert!(
        result
            .error_message
            .contains("plugin examples.trip is not granted capability api.call"),
        "{result:?}"
    );
    Ok(())
}
