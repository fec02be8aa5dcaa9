//! `tool_search` scoring, discovery lifetime and the exposed tool set.

use maitool_protocol::{ToolInvocation, ToolSpec};
use serde_json::json;

use super::fixtures::{World, args, ctx, names};
use crate::builtin::{
    BuiltinConfig, ContextSearchResult, DeferredTool, Discovery, Stage, build_exposure, classify,
    score, search,
};

fn tool(name: &str, description: &str) -> DeferredTool {
    DeferredTool {
        name: name.into(),
        description: description.into(),
    }
}

#[test]
fn scoring_follows_maibot() {
    // exact 1000 + prefix 300 + contains 200 + the term in the name 25
    assert_eq!(score("wait", "wait", "Pause for a while."), 1525);
    // prefix 300 + contains 200 + term in name 25
    assert_eq!(score("view", "view_forward_message", "Open a bundle."), 525);
    // contains 200 + description contains 100 + term in name 25 + term in description 10
    assert_eq!(
        score(
            "forward",
            "view_forward_message",
            "Open a forwarded bundle."
        ),
        335
    );
    // description contains 100 + term in description 10
    assert_eq!(
        score("bundle", "view_forward_message", "Open a forwarded bundle."),
        110
    );
    // terms only: "send" and "image" in the name, "image" in the description
    assert_eq!(
        score("send image", "send_image", "Show the user an image."),
        60
    );
    // terms split on `_` and `-` as well as spaces
    assert_eq!(
        score("send-image", "send_image", "Show the user an image."),
        60
    );
    // case and whitespace do not matter
    assert_eq!(
        score("  SEND \t Image ", "send_image", "Show the user an IMAGE."),
        60
    );
    assert_eq!(
        score("teleport", "send_image", "Show the user an image."),
        0
    );
    assert_eq!(score("   ", "send_image", "anything"), 0);
}

#[test]
fn search_drops_zero_scores_sorts_by_score_then_name_and_limits() {
    let tools = vec![
        tool("weather_today", "Today's weather."),
        tool("weather", "Current weather."),
        tool("b_forecast", "A weather forecast."),
        tool("a_forecast", "A weather forecast."),
        tool("translate", "Translate text."),
    ];
    let hits = search(&tools, "weather", 10);
    let order: Vec<(&str, i64)> = hits
        .iter()
        .map(|hit| (hit.name.as_str(), hit.score))
        .collect();
    assert_eq!(
        order,
        vec![
            ("weather", 1635),
            ("weather_today", 635),
            ("a_forecast", 110),
            ("b_forecast", 110)
        ]
    );
    assert_eq!(search(&tools, "weather", 2).len(), 2);
    assert_eq!(
        search(&tools, "weather", 0).len(),
        1,
        "the limit is at least 1"
    );
    assert!(search(&tools, "zzz", 5).is_empty());
}

#[tokio::test]
async fn discovery_lasts_only_while_the_search_result_is_in_context() {
    let discovery = Discovery::new();
    let session = "s";
    let newly = discovery
        .record_search(session, "ts1", &["translate".into(), "chart".into()])
        .await
        .unwrap();
    assert_eq!(newly, vec!["translate", "chart"]);
    let newly = discovery
        .record_search(session, "ts2", &["translate".into()])
        .await
        .unwrap();
    assert!(newly.is_empty(), "translate was discovered already");
    assert_eq!(discovery.discovered(session).await.unwrap().len(), 2);

    // ts1 left the context; ts2 is still there.
    discovery
        .sync_with_context(session, &[ContextSearchResult::call("ts2")])
        .await
        .unwrap();
    assert_eq!(
        discovery
            .discovered(session)
            .await
            .unwrap()
            .into_iter()
            .collect::<Vec<_>>(),
        vec!["translate"]
    );
    // Everything left.
    discovery.sync_with_context(session, &[]).await.unwrap();
    assert!(discovery.discovered(session).await.unwrap().is_empty());

    // Names are recovered from what the context holds, even for calls never recorded here.
    discovery.sync_with_context(
        session,
        &[
            ContextSearchResult {
                call_id: "x1".into(),
                structured_content: Some(json!({"matched_tool_names": ["alpha"]})),
                content: String::new(),
            },
            ContextSearchResult {
                call_id: "x2".into(),
                structured_content: None,
                content: "Found 2 deferred tool(s); ...:\n- beta (newly discovered)\n- gamma (discovered earlier)".into(),
            },
            ContextSearchResult {
                call_id: "x3".into(),
                structured_content: None,
                content: "- tool_search: delta,epsilon(2 tools)".into(),
            },
        ],
    ).await.unwrap();
    let found: Vec<String> = discovery
        .discovered(session)
        .await
        .unwrap()
        .into_iter()
        .collect();
    assert_eq!(found, vec!["alpha", "beta", "delta", "epsilon", "gamma"]);

    // A known pool narrows discovery to tools still deferred.
    discovery
        .set_deferred_pool(session, vec![tool("beta", ""), tool("zeta", "")])
        .await
        .unwrap();
    assert_eq!(
        discovery
            .discovered(session)
            .await
            .unwrap()
            .into_iter()
            .collect::<Vec<_>>(),
        vec!["beta"]
    );
    discovery.forget_session(session).await.unwrap();
    assert!(discovery.discovered(session).await.unwrap().is_empty());
}

#[test]
fn classification_splits_builtins_by_stage_and_others_by_visibility() {
    let builtin = |name: &str, stage: &str, visibility: &str| {
        ToolSpec::new(name, "")
            .with_provider(
                crate::builtin::PROVIDER_NAME,
                maitool_protocol::ProviderType::Builtin,
            )
            .with_metadata("builtin_stage", stage)
            .with_metadata("visibility", visibility)
    };
    let plugin = |name: &str, visibility: Option<&str>| {
        let spec = ToolSpec::new(name, "")
            .with_provider("some_plugin", maitool_protocol::ProviderType::Plugin);
        match visibility {
            Some(visibility) => spec.with_metadata("visibility", visibility),
            None => spec,
        }
    };
    let specs = vec![
        builtin("t", "timing", "visible"),
        builtin("a", "action", "visible"),
        builtin("b", "both", "visible"),
        builtin("d", "action", "deferred"),
        builtin("h", "action", "hidden"),
        plugin("pv", Some("visible")),
        plugin("pd", None),
        plugin("pu", Some("odd")),
        plugin("ph", Some("hidden")),
    ]
    .into_iter()
    .map(std::sync::Arc::new)
    .collect::<Vec<_>>();
    let action = classify(specs.clone(), Stage::Action);
    assert_eq!(names(&action.visible), vec!["a", "b", "pv"]);
    assert_eq!(names(&action.deferred), vec!["d", "pd", "pu"]);
    let timing = classify(specs, Stage::Timing);
    assert_eq!(names(&timing.visible), vec!["t", "b"]);
    assert!(timing.deferred.is_empty());
}

#[tokio::test]
async fn the_exposed_set_grows_with_discovery_and_shrinks_when_the_search_leaves_context() {
    let world = World::new(BuiltinConfig::default()).await;
    let ctx = ctx("s1");
    let avail = ctx.availability();
    let exposure = build_exposure(&world.registry, &world.discovery, &avail, Stage::Action)
        .await
        .unwrap();
    assert!(
        exposure.is_exposed("weather")
            && exposure.is_exposed("chart")
            && exposure.is_exposed("reply")
    );
    assert!(!exposure.is_exposed("translate") && !exposure.is_exposed("view_forward_message"));
    assert!(!exposure.is_exposed("secret_admin"));
    let reminder = exposure.reminder().unwrap();
    assert!(
        reminder.starts_with("<system-reminder>\n") && reminder.ends_with("</system-reminder>")
    );
    assert!(
        reminder.contains("1. view_forward_message: Open a forwarded-messages bundle"),
        "{reminder}"
    );
    assert!(
        reminder.contains("2. translate: Translate text between languages."),
        "{reminder}"
    );
    let rendered = exposure.render(crate::llm::ModelApi::OpenAiChat);
    assert_eq!(rendered.as_array().unwrap().len(), exposure.exposed.len());

    // tool_search through the registry sees the plugin's deferred tools too.
    let result = world
        .registry
        .invoke(
            ToolInvocation::new("tool_search", args(json!({"query": "translate"})))
                .with_call_id("ts1"),
            &ctx,
        )
        .await;
    assert!(result.success, "{}", result.error_message);
    assert_eq!(
        result.structured_content.unwrap()["matched_tool_names"],
        json!(["translate"])
    );
    let exposure = build_exposure(&world.registry, &world.discovery, &avail, Stage::Action)
        .await
        .unwrap();
    assert!(exposure.is_exposed("translate"));
    assert!(exposure.discovered.contains("translate"));
    assert!(!exposure.reminder().unwrap().contains("translate"));

    // The engine trimmed its context: the search result is gone, and so is the discovery.
    world
        .discovery
        .sync_with_context(&ctx.session_id, &[])
        .await
        .unwrap();
    let exposure = build_exposure(&world.registry, &world.discovery, &avail, Stage::Action)
        .await
        .unwrap();
    assert!(!exposure.is_exposed("translate"));

    // The timing stage shows only timing built-ins, and no plugin tools.
    let timing = build_exposure(&world.registry, &world.discovery, &avail, Stage::Timing)
        .await
        .unwrap();
    assert_eq!(names(&timing.exposed), vec!["wait", "finish"]);
    assert!(timing.reminder().is_none());
}

fn deferred_spec(name: &str, description: &str) -> std::sync::Arc<ToolSpec> {
    std::sync::Arc::new(ToolSpec::new(name, description))
}

#[test]
fn the_reminder_points_at_tool_search_only_when_the_model_has_it() {
    let undiscovered = vec![deferred_spec("translate", "Translate text.")];
    let with_search = crate::builtin::ToolExposure {
        exposed: vec![deferred_spec("tool_search", "Search the deferred tools.")],
        undiscovered: undiscovered.clone(),
        ..Default::default()
    };
    assert_eq!(
        with_search.reminder().unwrap(),
        "<system-reminder>\nThe following tools are not exposed to you directly, but you can \
         discover them with the tool_search tool (search by name, prefix or keyword); the tools \
         it finds become available from your next turn:\n1. translate: Translate text.\n\
         </system-reminder>"
    );
    // Built-ins off: there is no tool_search to use.
    let without_search = crate::builtin::ToolExposure {
        undiscovered,
        ..Default::default()
    };
    assert_eq!(
        without_search.reminder().unwrap(),
        "<system-reminder>\nThe following tools exist but are not exposed to you in this \
         conversation:\n1. translate: Translate text.\n</system-reminder>"
    );
}
