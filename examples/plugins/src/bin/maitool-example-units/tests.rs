//! The units plugin run in-process by the SDK's test harness: its APIs as another plugin's
//! `api.call` reaches them, and its planner hook handler as the host runs it.

use maitool_sdk::testing::{PluginTest, TestError};
use maitool_sdk::{Value, json};

use super::units;

#[tokio::test]
async fn the_public_api_converts_and_refuses_unknown_units() -> Result<(), TestError> {
    let t = PluginTest::new(units()).start().await?;
    let feet = t
        .call_api(
            "units.convert",
            "",
            json!({"value": 1.0, "from": "mi", "to": "ft"}),
        )
        .await?
        .unwrap();
    assert_eq!(feet["unit"], "ft");
    assert!(
        (feet["value"].as_f64().unwrap() - 5280.0).abs() < 1e-9,
        "{feet}"
    );
    let refused = t
        .call_api(
            "units.convert",
            "",
            json!({"value": 1.0, "from": "yd", "to": "m"}),
        )
        .await?;
    assert_eq!(
        refused,
        Err("unknown unit yd: use m, km, ft or mi".to_owned())
    );
    let bad = t
        .call_api("units.convert", "", json!({"value": "one"}))
        .await?;
    assert!(bad.unwrap_err().starts_with("invalid arguments:"));
    let declared: Vec<(String, Value)> = t
        .declarations()
        .into_iter()
        .filter(|d| d.component_type == "API")
        .map(|d| (d.name, d.metadata["public"].clone()))
        .collect();
    assert_eq!(
        declared,
        [
            ("units.convert".to_owned(), Value::Bool(true)),
            ("units.table".to_owned(), Value::Bool(false))
        ]
    );
    Ok(())
}

#[tokio::test]
async fn the_hook_handler_hides_the_configured_tools() -> Result<(), TestError> {
    let t = PluginTest::new(units())
        .config(json!({"hide_tools": ["send_emoji"]}))
        .start()
        .await?;
    let kwargs = json!({
        "tool_definitions": [
            {"type": "function", "function": {"name": "send_emoji"}},
            {"type": "function", "function": {"name": "reply"}}
        ],
        "session_id": "s1"
    });
    let answer = t
        .run_hook("hide_tools", "maisaka.planner.before_request", kwargs)
        .await?;
    assert!(answer.success);
    assert_eq!(answer.action, "continue");
    let kept = &answer.modified_kwargs.unwrap()["tool_definitions"];
    assert_eq!(
        kept,
        &json!([{"type": "function", "function": {"name": "reply"}}])
    );
    let handler = t.declaration("hide_tools").unwrap();
    assert_eq!(handler.component_type, "HOOK_HANDLER");
    assert_eq!(handler.metadata["order"], "early");
    Ok(())
}

#[tokio::test]
async fn the_self_check_reads_its_private_table_through_api_call() -> Result<(), TestError> {
    // The test host answers api.call as the host would for this plugin's own API.
    let t = PluginTest::new(units())
        .grant("api.call")
        .serve("api.call", |args| {
            assert_eq!(args["api_name"], "units.table");
            Ok(json!({"success": true, "result": [{"unit": "m"}, {"unit": "km"}]}))
        })
        .start()
        .await?;
    let result = t.call("units_self_check", json!({})).await?;
    assert_eq!(result.content, "2 units");
    Ok(())
}
