//! The SDK's test harness (`maitool_sdk::testing`) answers capability calls as the host
//! does: the same calls, made by a plugin through the harness and straight to the host's
//! `CapabilityService`, get the same results and the same error codes and messages. A change
//! to the host's answers that the harness does not follow fails here.

use std::sync::Arc;

use maitool_host::plugin::{CapabilityService, KvStore, MemorySink};
use maitool_sdk::prelude::*;
use maitool_sdk::testing::{PluginTest, RpcError};
use maitool_sdk::{JsonObject, Value};

const PLUGIN: &str = "tests.relay";

/// Call a host capability and report its answer or error verbatim.
#[maitool_sdk::tool]
async fn relay(
    /// The capability.
    capability: String,
    /// Its arguments.
    args: JsonObject,
    ctx: ToolContext,
) -> Result<ToolOutput, ToolError> {
    Ok(ToolOutput::structured(
        match ctx.host().call(&capability, args).await {
            Ok(value) => json!({ "ok": value }),
            Err(err) => {
                // The SDK's error keeps the host's answer as its source.
                let answer = std::error::Error::source(&err)
                    .and_then(|source| source.downcast_ref::<RpcError>())
                    .ok_or_else(|| ToolError::new(format!("no host answer in {err}")))?;
                json!({ "code": answer.code.as_str(), "message": answer.message })
            }
        },
    ))
}

/// The calls compared, in order (the kv calls depend on the ones before).
fn calls() -> Vec<(&'static str, Value)> {
    vec![
        ("kv.set", json!({ "key": "a", "value": { "n": 1 } })),
        ("kv.set", json!({ "key": "b/c", "value": "text" })),
        ("kv.get", json!({ "key": "a" })),
        ("kv.get", json!({ "key": "missing" })),
        ("kv.list", json!({ "prefix": "b" })),
        ("kv.list", json!({})),
        ("kv.delete", json!({ "key": "a" })),
        ("kv.delete", json!({ "key": "a" })),
        ("kv.get", json!({})),
        ("kv.set", json!({ "key": "  " })),
        ("send.text", json!({ "stream_id": "s-1", "text": "hello" })),
        ("send.text", json!({ "stream_id": "s-1" })),
        ("send.text", json!({ "text": "no stream" })),
        // Not granted.
        (
            "send.image",
            json!({ "stream_id": "s-1", "image_base64": "AAAA" }),
        ),
        ("llm.generate", json!({ "prompt": "hi" })),
        ("component.enable", json!({ "name": "x" })),
    ]
}

/// An answer with the parts that legitimately differ (the message id a sink assigns) removed.
fn comparable(mut answer: Value) -> Value {
    if let Some(ok) = answer.get_mut("ok").and_then(Value::as_object_mut) {
        ok.remove("message_id");
    }
    answer
}

#[tokio::test]
async fn the_harness_answers_capability_calls_as_the_host_does() {
    let grants = ["kv.*", "send.text"];
    let host = CapabilityService::new(
        Arc::new(MemorySink::default()),
        KvStore::in_memory().expect("an in-memory kv store"),
    );
    host.configure_plugin(
        PLUGIN,
        grants.iter().map(|g| g.to_string()).collect(),
        JsonObject::new(),
    );
    let mut test = PluginTest::new(Plugin::new(PLUGIN, "1.0.0").tool(relay_tool()));
    for grant in grants {
        test = test.grant(grant);
    }
    let harness = test.start().await.expect("the relay plugin starts");

    for (capability, args) in calls() {
        let Value::Object(object) = args.clone() else {
            unreachable!("every case's arguments are an object")
        };
        let by_host = match host.call(PLUGIN, capability, &object).await {
            Ok(value) => json!({ "ok": value }),
            Err(err) => json!({ "code": err.code.as_str(), "message": err.message }),
        };
        let result = harness
            .call("relay", json!({ "capability": capability, "args": args }))
            .await
            .expect("the relay tool answers");
        assert!(result.success, "{result:?}");
        let by_harness = result.structured_content.expect("the relay's report");
        assert_eq!(
            comparable(by_harness),
            comparable(by_host.clone()),
            "{capability} {args}"
        );
        // What was compared is an answer, not two empty values.
        assert!(by_host.get("ok").is_some() || by_host.get("code").is_some());
    }
    assert_eq!(harness.sent().len(), 1);
    assert_eq!(harness.sent()[0].stream_id, "s-1");
}
