use maitool_protocol::wire::methods::ComponentDeclaration;
use serde_json::{Value, json};

use super::*;

fn handler(name: &str, metadata: Value) -> ComponentDeclaration {
    let Value::Object(metadata) = metadata else {
        panic!("metadata is an object")
    };
    ComponentDeclaration {
        name: name.into(),
        component_type: "HOOK_HANDLER".into(),
        metadata,
        ..ComponentDeclaration::default()
    }
}

fn tool(name: &str) -> ComponentDeclaration {
    ComponentDeclaration {
        name: name.into(),
        component_type: "TOOL".into(),
        ..ComponentDeclaration::default()
    }
}

const PLANNER: &str = "maisaka.planner.before_request";
const RECEIVE: &str = "chat.receive.before_process";

#[test]
fn handlers_run_in_maibots_order_across_plugins() {
    let registry = HookRegistry::default();
    registry.register_plugin(
        "b.plugin",
        &[
            handler(
                "watch",
                json!({"hook": RECEIVE, "mode": "observe", "order": "early"}),
            ),
            handler("late", json!({"hook": RECEIVE, "order": "late"})),
            tool("not_a_handler"),
        ],
    );
    registry.register_plugin(
        "a.plugin",
        &[
            handler("normal", json!({"hook": RECEIVE})),
            handler("early", json!({"hook": RECEIVE, "order": "EARLY"})),
        ],
    );
    let order: Vec<String> = registry
        .handlers(RECEIVE)
        .iter()
        .map(|h| h.full_name.clone())
        .collect();
    assert_eq!(
        order,
        [
            "a.plugin.early",
            "a.plugin.normal",
            "b.plugin.late",
            "b.plugin.watch"
        ]
    );
    assert!(registry.has_handlers(RECEIVE));
    assert!(!registry.has_handlers(PLANNER));
    registry.unregister_plugin("a.plugin");
    assert_eq!(registry.handlers(RECEIVE).len(), 2);
    assert_eq!(registry.plugin_handlers("b.plugin").len(), 2);
}

#[test]
fn a_handler_that_cannot_run_is_kept_with_its_reason_and_never_dispatched() {
    let registry = HookRegistry::default();
    registry.register_plugin(
        "p",
        &[
            handler("unknown", json!({"hook": "heart_fc.cycle_start"})),
            handler(
                "no_abort",
                json!({"hook": PLANNER, "error_policy": "abort"}),
            ),
            handler("bad_mode", json!({"hook": PLANNER, "mode": "sometimes"})),
            handler("no_hook", json!({})),
            handler("bad_timeout", json!({"hook": PLANNER, "timeout_ms": -1})),
            handler("fine", json!({"hook": PLANNER, "timeout_ms": 250})),
        ],
    );
    let reasons: Vec<(String, Option<String>)> = registry
        .plugin_handlers("p")
        .iter()
        .map(|h| (h.name.clone(), h.refused.clone()))
        .collect();
    let reason = |name: &str| {
        reasons
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, r)| r.clone())
            .unwrap_or_default()
    };
    assert!(reason("unknown").contains("heart_fc.cycle_start is not one of MaiBot's hooks"));
    assert!(reason("no_abort").contains("cannot be aborted"));
    assert!(reason("bad_mode").contains("mode must be one of blocking observe"));
    assert_eq!(reason("no_hook"), "it names no hook");
    assert!(reason("bad_timeout").contains("timeout_ms must be a non-negative integer"));
    assert_eq!(reason("fine"), "");
    let runnable = registry.handlers(PLANNER);
    assert_eq!(runnable.len(), 1);
    assert_eq!(runnable[0].timeout_ms(60_000), 250);
    assert!(
        registry
            .find("unknown")
            .unwrap()
            .describe()
            .starts_with("hook handler that never runs")
    );
}

#[test]
fn timeouts_fall_back_from_the_handler_to_the_hook_to_the_runtime() {
    let registry = HookRegistry::default();
    registry.register_plugin(
        "p",
        &[
            handler("planner", json!({"hook": PLANNER})),
            handler("receive", json!({"hook": RECEIVE})),
        ],
    );
    assert_eq!(registry.find("p.planner").unwrap().timeout_ms(60_000), 6000);
    assert_eq!(registry.find("receive").unwrap().timeout_ms(60_000), 60_000);
    registry.register_plugin("q", &[handler("receive", json!({"hook": RECEIVE}))]);
    assert!(
        registry.find("receive").is_none(),
        "a bare name two plugins use"
    );
}
