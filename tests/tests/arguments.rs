//! Arguments that break a tool's JSON Schema are refused by the registry before dispatch, for
//! a real runner's tool (schema derived by the SDK, with `$defs` and `$ref`) and for a real
//! MCP server's tool, and both keep serving.

mod mcp_support;

use maitool_e2e::plugins::{Harness, RunnerSpec, fast_config};
use maitool_host::ToolRegistry;
use maitool_protocol::{JsonObject, ToolExecutionContext, ToolExecutionResult, ToolInvocation};
use serde_json::{Value, json};

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

fn assert_refused(result: &ToolExecutionResult, tool: &str, detail: &str) {
    assert!(!result.success, "{tool} accepted bad arguments: {result:?}");
    let prefix = format!("invalid arguments for tool {tool}: ");
    assert!(
        result.error_message.starts_with(&prefix) && result.error_message.contains(detail),
        "{:?} should start with {prefix:?} and contain {detail:?}",
        result.error_message
    );
    // Only the registry's check sets this: the call never reached the tool.
    assert_eq!(result.metadata["error_kind"], "invalid_arguments");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runner_tool_gets_only_calls_that_match_its_schema() {
    let harness = Harness::start(
        fast_config(),
        vec![RunnerSpec::new("dice", "maitool-example-dice")],
    )
    .await;
    let ctx = ToolExecutionContext::default();
    let cases = [
        (
            json!({"a": "six", "b": 7, "op": "add"}),
            "at /a: \"six\" is not of type \"number\"",
        ),
        (json!({"a": 6, "b": 7, "op": "power"}), "at /op:"),
        (json!({"a": 6, "op": "add"}), "\"b\" is a required property"),
        (
            json!({"a": 6, "b": 7, "op": "add", "c": 1}),
            "'c' was unexpected",
        ),
    ];
    for (arguments, detail) in cases {
        let result = harness.call("calculate", arguments, &ctx).await;
        assert_refused(&result, "calculate", detail);
    }
    let fine = harness
        .call("calculate", json!({"a": 6, "b": 7, "op": "multiply"}), &ctx)
        .await;
    assert!(fine.success, "{}", fine.error_message);
    assert_eq!(fine.content, "42");
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_tool_gets_only_calls_that_match_its_schema() {
    maitool_e2e::init_tracing();
    let provider = mcp_support::start(mcp_support::config(vec![mcp_support::example_server(
        "example",
    )]))
    .await;
    let registry = ToolRegistry::new();
    registry.register_provider(provider.clone());
    let ctx = ToolExecutionContext::default();
    let bad = registry
        .invoke(
            ToolInvocation::new("add", object(json!({"a": 1, "b": "two"}))),
            &ctx,
        )
        .await;
    assert_refused(&bad, "add", "at /b: \"two\" is not of type \"number\"");
    let missing = registry
        .invoke(ToolInvocation::new("echo", JsonObject::new()), &ctx)
        .await;
    assert_refused(&missing, "echo", "\"text\" is a required property");
    let sum = registry
        .invoke(
            ToolInvocation::new("add", object(json!({"a": 1, "b": 2}))),
            &ctx,
        )
        .await;
    assert!(sum.success, "{}", sum.error_message);
    assert_eq!(sum.content, "1 + 2 = 3");
    registry.close().await;
}
