use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use maitool_protocol::{JsonObject, ToolAvailabilityContext, ToolSpec};
use serde_json::{Value, json};

use super::*;

/// A stand-in for the plugin runtime: replaces `tool_definitions` with what `rewrite` makes
/// of them, and counts its runs.
struct Rewriting {
    rewrite: fn(Vec<Value>) -> Value,
    runs: AtomicUsize,
}

#[async_trait]
impl HookInvoker for Rewriting {
    fn has_handlers(&self, hook: &str) -> bool {
        hook == reach::PLANNER_BEFORE_REQUEST
    }

    async fn invoke(&self, hook: &'static HookSpec, mut kwargs: JsonObject) -> HookOutcome {
        self.runs.fetch_add(1, Ordering::Relaxed);
        let definitions = kwargs["tool_definitions"].as_array().unwrap().clone();
        kwargs.insert("tool_definitions".into(), (self.rewrite)(definitions));
        HookOutcome {
            kwargs,
            ..HookOutcome::untouched(hook.name, JsonObject::new())
        }
    }
}

fn tools() -> Vec<Arc<ToolSpec>> {
    ["alpha", "beta", "gamma"]
        .into_iter()
        .map(|name| Arc::new(ToolSpec::new(name, format!("the {name} tool"))))
        .collect()
}

fn names(tools: &[Arc<ToolSpec>]) -> Vec<&str> {
    tools.iter().map(|spec| spec.name.as_str()).collect()
}

fn session(id: &str) -> ToolAvailabilityContext {
    ToolAvailabilityContext {
        session_id: id.into(),
        ..ToolAvailabilityContext::default()
    }
}

#[tokio::test]
async fn a_handler_drops_reorders_and_rewrites_the_offer() {
    let invoker = Rewriting {
        rewrite: |mut definitions| {
            definitions.retain(|d| d["function"]["name"] != "beta");
            definitions.reverse();
            definitions[0]["function"]["description"] = json!("rewritten");
            definitions.push(json!({"type": "function", "function": {"name": "nowhere"}}));
            definitions.push(json!("not a definition"));
            Value::Array(definitions)
        },
        runs: AtomicUsize::new(0),
    };
    let original = tools();
    let offered = offer::shape(&invoker, &session("s1"), original.clone()).await;
    assert_eq!(names(&offered), ["gamma", "alpha"]);
    assert_eq!(offered[0].description, "rewritten");
    // The untouched definition keeps the very spec the provider listed.
    assert!(Arc::ptr_eq(&offered[1], &original[0]));
}

#[tokio::test]
async fn a_listing_outside_a_session_is_not_shaped() {
    let invoker = Rewriting {
        rewrite: |_| json!([]),
        runs: AtomicUsize::new(0),
    };
    let offered = offer::shape(&invoker, &ToolAvailabilityContext::default(), tools()).await;
    assert_eq!(names(&offered), ["alpha", "beta", "gamma"]);
    assert_eq!(invoker.runs.load(Ordering::Relaxed), 0);
    // A stream alone is MaiBot's session.
    let stream = ToolAvailabilityContext {
        stream_id: "st".into(),
        ..ToolAvailabilityContext::default()
    };
    assert!(offer::shape(&invoker, &stream, tools()).await.is_empty());
}

#[tokio::test]
async fn definitions_that_are_not_a_list_keep_the_listing() {
    let invoker = Rewriting {
        rewrite: |_| json!({"oops": true}),
        runs: AtomicUsize::new(0),
    };
    let offered = offer::shape(&invoker, &session("s1"), tools()).await;
    assert_eq!(names(&offered), ["alpha", "beta", "gamma"]);
}

#[test]
fn the_planner_kwargs_carry_maibots_keys_and_openai_definitions() {
    let kwargs = offer::planner_kwargs("s9", &tools());
    let spec = maitool_protocol::hook::spec(reach::PLANNER_BEFORE_REQUEST).unwrap();
    check_kwargs(spec, &kwargs).unwrap();
    assert_eq!(kwargs["session_id"], "s9");
    assert_eq!(kwargs["tool_definitions"][1]["type"], "function");
    assert_eq!(kwargs["tool_definitions"][1]["function"]["name"], "beta");
}

#[test]
fn every_catalogued_schema_compiles_and_bad_kwargs_name_the_key() {
    for spec in CATALOG {
        let _ = check_kwargs(spec, &JsonObject::new());
    }
    let spec = maitool_protocol::hook::spec("chat.receive.before_process").unwrap();
    let err = check_kwargs(spec, &JsonObject::new()).unwrap_err();
    assert!(
        err.to_string()
            .contains("\"message\" is a required property"),
        "{err}"
    );
    let Value::Object(wrong) = json!({"message": "hello"}) else {
        unreachable!()
    };
    let err = check_kwargs(spec, &wrong).unwrap_err();
    assert!(err.to_string().contains("at /message"), "{err}");
}

#[tokio::test]
async fn an_unknown_hook_is_refused_with_the_known_names() {
    let invoker = Rewriting {
        rewrite: |d| Value::Array(d),
        runs: AtomicUsize::new(0),
    };
    let err = run_named(&invoker, "heart_fc.cycle_start", JsonObject::new())
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.starts_with("unknown hook \"heart_fc.cycle_start\""),
        "{text}"
    );
    assert!(text.contains("maisaka.planner.before_request"), "{text}");
    assert_eq!(invoker.runs.load(Ordering::Relaxed), 0);
}

#[test]
fn reach_names_the_host_point_or_the_engine() {
    assert!(matches!(
        reach(reach::PLANNER_BEFORE_REQUEST),
        HookReach::Host { .. }
    ));
    assert_eq!(reach("jargon.extract.before_persist"), HookReach::Engine);
    assert!(HookReach::Engine.describe().contains("maitool hook"));
}
