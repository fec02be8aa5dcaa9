use maitool_protocol::JsonObject;
use maitool_protocol::hook::{HookErrorPolicy, HookMode, HookOrder, HookResponse};
use serde_json::{Value, json};

use super::call::HandlerRun;
use super::merge;
use crate::hook::HookOutcome;
use crate::plugin::hooks::HookHandlerEntry;

const RECEIVE: &str = "chat.receive.before_process";

fn entry(hook: &str, policy: HookErrorPolicy) -> HookHandlerEntry {
    HookHandlerEntry {
        full_name: "p.h".into(),
        name: "h".into(),
        plugin_id: "p".into(),
        hook: hook.into(),
        mode: HookMode::Blocking,
        order: HookOrder::Normal,
        error_policy: policy,
        timeout_ms: 0,
        spec: maitool_protocol::hook::spec(hook),
        refused: None,
    }
}

fn outcome(hook: &str) -> HookOutcome {
    let Value::Object(kwargs) = json!({"message": {"text": "hi"}}) else {
        unreachable!()
    };
    HookOutcome::untouched(hook, kwargs)
}

fn answer(value: Value) -> HandlerRun {
    HandlerRun::Answered(serde_json::from_value::<HookResponse>(value).unwrap())
}

#[test]
fn a_blocking_answer_changes_the_kwargs_and_aborts_where_the_hook_allows() {
    let spec = maitool_protocol::hook::spec(RECEIVE).unwrap();
    let mut out = outcome(RECEIVE);
    let run = answer(json!({
        "action": "abort",
        "modified_kwargs": {"message": {"text": "changed"}},
        "custom_result": {"why": "spam"}
    }));
    merge(spec, &entry(RECEIVE, HookErrorPolicy::Skip), run, &mut out);
    assert!(out.aborted);
    assert_eq!(out.stopped_by.as_deref(), Some("p.h"));
    assert_eq!(out.kwargs["message"]["text"], "changed");
    assert_eq!(out.custom_results, [json!({"why": "spam"})]);

    let spec = maitool_protocol::hook::spec("send_service.after_send").unwrap();
    let mut out = outcome("send_service.after_send");
    let run = answer(json!({"action": "abort", "modified_kwargs": {"message": {}}}));
    merge(
        spec,
        &entry("send_service.after_send", HookErrorPolicy::Skip),
        run,
        &mut out,
    );
    assert!(!out.aborted);
    assert_eq!(out.kwargs["message"]["text"], "hi");
    assert_eq!(out.errors.len(), 2, "{:?}", out.errors);
}

#[test]
fn a_failed_handler_goes_by_its_error_policy() {
    let spec = maitool_protocol::hook::spec(RECEIVE).unwrap();
    for (policy, aborts) in [
        (HookErrorPolicy::Abort, true),
        (HookErrorPolicy::Skip, false),
        (HookErrorPolicy::Log, false),
    ] {
        let mut out = outcome(RECEIVE);
        let run = HandlerRun::Failed("hook handler p.h timed out after 5 ms".into());
        merge(spec, &entry(RECEIVE, policy), run, &mut out);
        assert_eq!(out.aborted, aborts, "{policy}");
        assert_eq!(out.errors, ["hook handler p.h timed out after 5 ms"]);
    }
    // Skipped handlers (circuit open, runner not ready) never abort.
    let mut out = outcome(RECEIVE);
    merge(
        spec,
        &entry(RECEIVE, HookErrorPolicy::Abort),
        HandlerRun::Skipped("skipped".into()),
        &mut out,
    );
    assert!(!out.aborted);
}

#[test]
fn odd_answers_are_noted_and_taken_as_continue() {
    let spec = maitool_protocol::hook::spec(RECEIVE).unwrap();
    let mut out = outcome(RECEIVE);
    let run = answer(json!({"action": "later", "modified_kwargs": "text"}));
    merge(spec, &entry(RECEIVE, HookErrorPolicy::Skip), run, &mut out);
    assert!(!out.aborted);
    assert_eq!(out.kwargs["message"]["text"], "hi");
    assert!(
        out.errors[0].contains("a string, not an object"),
        "{:?}",
        out.errors
    );
    assert!(
        out.errors[1].contains("taken as continue"),
        "{:?}",
        out.errors
    );
    let _ = JsonObject::new();
}
