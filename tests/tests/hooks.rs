//! Hooks through the host library and real runners: the planner's request hook of a Rust
//! plugin (`examples.units`' `hide_tools`) shapes what a session is offered, through the
//! registry's listing, the model definitions and the MCP front; an engine runs a named hook
//! with `Host::invoke_hook` and gets the kwargs as the handler left them. The MaiBot side
//! (modes, error policies, timeouts) is `maibot_hooks.rs`.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use maitool_e2e::workspace_bin;
use maitool_host::hook::HookError;
use maitool_host::mcp_server::{FrontConfig, McpFront};
use maitool_host::{Host, HostConfig, LoadedConfig};
use maitool_protocol::{JsonObject, ToolAvailabilityContext, ToolExecutionContext, ToolInvocation};
use rmcp::ServiceExt;
use serde_json::{Value, json};

/// The units runner (hiding `hide`) and the trip runner, built-in tools on.
fn config(dir: &Path, hide: &str) -> LoadedConfig {
    let text = format!(
        "[host]\ncontrol_socket = \"control.sock\"\ndata_dir = \"state\"\n\
         [builtin]\ndatabase = \"state/maitool.sqlite3\"\n\
         [[runners]]\nname = \"units\"\nexecutable = \"{units}\"\n\
         [runners.plugins.\"examples.units\"]\ncapabilities = [\"api.call\"]\n\
         config = {{ hide_tools = [{hide}] }}\n\
         [[runners]]\nname = \"trip\"\nexecutable = \"{trip}\"\n\
         [runners.plugins.\"examples.trip\"]\ncapabilities = [\"api.*\"]\n",
        units = workspace_bin("maitool-example-units").display(),
        trip = workspace_bin("maitool-example-trip").display(),
    );
    let path = dir.join("maitool.toml");
    std::fs::write(&path, text).unwrap();
    HostConfig::load(&path).unwrap()
}

fn session(id: &str) -> ToolAvailabilityContext {
    ToolAvailabilityContext {
        session_id: id.into(),
        ..ToolAvailabilityContext::default()
    }
}

async fn names(host: &Host, ctx: &ToolAvailabilityContext) -> Vec<String> {
    host.registry
        .list_tools(ctx)
        .await
        .iter()
        .map(|spec| spec.name.clone())
        .collect()
}

#[tokio::test]
async fn a_rust_planner_hook_shapes_what_each_session_is_offered() {
    maitool_e2e::logs::capture();
    let temp = tempfile::tempdir().unwrap();
    let host = Arc::new(
        Host::start(config(temp.path(), "\"trip_length\", \"send_emoji\""))
            .await
            .unwrap(),
    );
    // Outside a session nothing is shaped: the plain listing.
    let plain = names(&host, &ToolAvailabilityContext::default()).await;
    for tool in ["trip_length", "send_emoji", "units_self_check", "trip_api"] {
        assert!(plain.iter().any(|name| name == tool), "{tool} in {plain:?}");
    }
    // In a session (or a stream, MaiBot's session) the hook's handler leaves them out.
    for ctx in [
        session("s1"),
        ToolAvailabilityContext {
            stream_id: "st1".into(),
            ..ToolAvailabilityContext::default()
        },
    ] {
        let offered = names(&host, &ctx).await;
        assert!(!offered.contains(&"trip_length".to_owned()), "{offered:?}");
        assert!(!offered.contains(&"send_emoji".to_owned()), "{offered:?}");
        assert!(
            offered.contains(&"units_self_check".to_owned()),
            "{offered:?}"
        );
        assert_eq!(offered.len(), plain.len() - 2);
    }
    let definitions: Vec<String> = host
        .registry
        .get_llm_definitions(&session("s1"))
        .await
        .into_iter()
        .map(|definition| definition.name)
        .collect();
    assert!(!definitions.contains(&"trip_length".to_owned()));
    // Left out of the offer, not forbidden: a call by name still runs, as in MaiBot.
    let called = host
        .registry
        .invoke(
            ToolInvocation::new(
                "trip_length",
                json!({"legs_km": [1.609344]}).as_object().cloned().unwrap(),
            ),
            &ToolExecutionContext {
                session_id: "s1".into(),
                ..ToolExecutionContext::default()
            },
        )
        .await;
    assert_eq!(called.content, "1.0 mi", "{called:?}");

    // The MCP front lists what its session is offered.
    let front = McpFront::new(
        host.registry.clone(),
        FrontConfig {
            context: ToolExecutionContext {
                session_id: "front-session".into(),
                ..ToolExecutionContext::default()
            },
            ..FrontConfig::default()
        },
    );
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let server = tokio::spawn(async move {
        let (read, write) = tokio::io::split(server_io);
        if let Ok(running) = front.serve((read, write)).await {
            let _ = running.waiting().await;
        }
    });
    let (read, write) = tokio::io::split(client_io);
    let client = ().serve((read, write)).await.expect("the client connects");
    let listed: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|tool| tool.name.to_string())
        .collect();
    assert!(!listed.contains(&"trip_length".to_owned()), "{listed:?}");
    assert!(listed.contains(&"trip_api".to_owned()), "{listed:?}");
    drop(client);
    server.abort();
    host.shutdown().await;
}

#[tokio::test]
async fn an_engine_runs_a_named_hook_and_gets_the_kwargs_the_handler_left() {
    maitool_e2e::logs::capture();
    let temp = tempfile::tempdir().unwrap();
    let host = Host::start(config(temp.path(), "\"b\"")).await.unwrap();
    let Value::Object(kwargs) = json!({
        "items": [{"role": "user", "content": "hi"}],
        "item_schema_version": 1,
        "tool_definitions": [
            {"type": "function", "function": {"name": "a"}},
            {"type": "function", "function": {"name": "b"}}
        ],
        "selected_history_count": 1,
        "built_message_count": 1,
        "selection_reason": "engine",
        "session_id": "engine-1"
    }) else {
        unreachable!()
    };
    let outcome = tokio::time::timeout(
        Duration::from_secs(30),
        host.invoke_hook("maisaka.planner.before_request", kwargs),
    )
    .await
    .unwrap()
    .unwrap();
    assert!(!outcome.aborted);
    assert_eq!(outcome.handlers_run, 1);
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    assert_eq!(
        outcome.kwargs["tool_definitions"],
        json!([{"type": "function", "function": {"name": "a"}}])
    );
    // The engine's own items come back untouched by a handler that did not change them.
    assert_eq!(
        outcome.kwargs["items"],
        json!([{"role": "user", "content": "hi"}])
    );
    assert!(!outcome.kwargs.contains_key("hook_name"));

    // A hook nobody subscribes to returns the kwargs as given; bad input is refused.
    let Value::Object(message) = json!({"message": {"processed_plain_text": "x"}}) else {
        unreachable!()
    };
    let untouched = host
        .invoke_hook("chat.receive.before_process", message.clone())
        .await
        .unwrap();
    assert_eq!((untouched.handlers_run, &untouched.kwargs), (0, &message));
    let unknown = host
        .invoke_hook("heart_fc.cycle_start", JsonObject::new())
        .await
        .unwrap_err();
    assert!(
        matches!(unknown, HookError::UnknownHook { .. }),
        "{unknown}"
    );
    let invalid = host
        .invoke_hook("chat.receive.before_process", JsonObject::new())
        .await
        .unwrap_err();
    assert!(
        invalid
            .to_string()
            .contains("\"message\" is a required property"),
        "{invalid}"
    );
    host.shutdown().await;
}
