//! The provider's filters: stage, visibility, chat scope and config gates, and its place in a
//! real registry.

use std::collections::BTreeMap;

use maitool_protocol::{ChatScope, ProviderType, ToolAvailabilityContext, ToolInvocation};
use serde_json::json;

use super::fixtures::{World, args, ctx, names};
use crate::builtin::catalog::BUILTIN_TOOL_ENTRIES;
use crate::builtin::{BuiltinConfig, BuiltinEntry, ExpressionSelectionMode, PROVIDER_NAME, Stage};
use crate::provider::{ProviderError, ToolProvider};

fn group() -> ToolAvailabilityContext {
    ctx("s1").availability()
}

fn private() -> ToolAvailabilityContext {
    ToolAvailabilityContext {
        is_group_chat: Some(false),
        group_id: String::new(),
        ..group()
    }
}

fn reply_properties(world: &World) -> Vec<String> {
    let spec = world
        .provider
        .list_tools_for_stage(&group(), Stage::Action)
        .into_iter()
        .find(|s| s.name == "reply")
        .unwrap();
    let schema = spec.parameters_schema.clone().unwrap();
    let mut properties: Vec<String> = schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    properties.sort();
    properties
}

#[tokio::test]
async fn the_default_catalog_and_its_metadata() {
    let world = World::new(BuiltinConfig::default()).await;
    let specs = world.provider.list_tools(&group()).await.unwrap();
    assert_eq!(
        names(&specs),
        vec![
            "wait",
            "finish",
            "reply",
            "view_forward_message",
            "query_memory",
            "query_person_profile",
            "send_emoji",
            "send_image",
            "tool_search"
        ]
    );
    for spec in &specs {
        assert_eq!(spec.provider_name, PROVIDER_NAME);
        assert_eq!(spec.provider_type, ProviderType::Builtin);
        assert!(
            spec.description.is_ascii(),
            "English descriptions: {}",
            spec.description
        );
        let schema = spec.parameters_schema.as_ref().unwrap();
        assert_eq!(schema["type"], json!("object"));
        let entry = BUILTIN_TOOL_ENTRIES
            .iter()
            .find(|e| e.name == spec.name)
            .unwrap();
        assert_eq!(spec.metadata["builtin_stage"], json!(entry.stage.as_str()));
        assert_eq!(
            spec.metadata["visibility"],
            json!(entry.visibility.as_str())
        );
    }
    let visibility = |name: &str| {
        specs
            .iter()
            .find(|s| s.name == name)
            .unwrap()
            .visibility()
            .unwrap()
            .to_owned()
    };
    assert_eq!(visibility("view_forward_message"), "deferred");
    assert_eq!(visibility("tool_search"), "visible");
}

#[tokio::test]
async fn the_stage_filter_offers_timing_and_action_sets() {
    let world = World::new(BuiltinConfig::default()).await;
    let timing = world.provider.list_tools_for_stage(&group(), Stage::Timing);
    assert_eq!(names(&timing), vec!["wait", "finish"]);
    let action = world.provider.list_tools_for_stage(&group(), Stage::Action);
    assert!(names(&action).contains(&"reply") && names(&action).contains(&"wait"));
    assert_eq!(action.len(), 9);
    assert!(Stage::Timing.offered_in(Stage::Both) && !Stage::Timing.offered_in(Stage::Action));
}

#[test]
fn the_chat_scope_filter_follows_the_chat_type() {
    let config = BuiltinConfig::default();
    let group_only = BuiltinEntry {
        chat_scope: ChatScope::Group,
        ..BUILTIN_TOOL_ENTRIES[0]
    };
    let private_only = BuiltinEntry {
        chat_scope: ChatScope::Private,
        ..BUILTIN_TOOL_ENTRIES[0]
    };
    let unknown = ToolAvailabilityContext::default();
    assert!(group_only.available(&config, &group()));
    assert!(!group_only.available(&config, &private()));
    assert!(
        !group_only.available(&config, &unknown),
        "an unknown chat type is not a group"
    );
    assert!(private_only.available(&config, &private()));
    assert!(!private_only.available(&config, &group()));
    assert!(BUILTIN_TOOL_ENTRIES[0].available(&config, &unknown));
}

#[tokio::test]
async fn config_gates_add_and_withdraw_tools() {
    let rich = World::new(BuiltinConfig {
        enable_rich_reply: true,
        ..BuiltinConfig::default()
    })
    .await;
    let listed = rich.provider.list_tools(&group()).await.unwrap();
    assert!(!names(&listed).contains(&"send_emoji") && !names(&listed).contains(&"send_image"));
    let properties = reply_properties(&rich);
    for attachment in ["attach_at", "attach_emoji", "attach_pic", "text_mode"] {
        assert!(
            properties.contains(&attachment.to_owned()),
            "{properties:?}"
        );
    }
    let plain = World::new(BuiltinConfig::default()).await;
    assert_eq!(
        reply_properties(&plain),
        vec![
            "msg_id",
            "reply_reference",
            "reply_style",
            "set_quote",
            "text"
        ]
    );

    let quiet = World::new(BuiltinConfig {
        enable_memory_query_tool: false,
        enable_person_profile_query_tool: false,
        ..BuiltinConfig::default()
    })
    .await;
    let listed = quiet.provider.list_tools(&group()).await.unwrap();
    assert!(
        !names(&listed).contains(&"query_memory")
            && !names(&listed).contains(&"query_person_profile")
    );

    let intent = World::new(BuiltinConfig {
        expression_selection_mode: ExpressionSelectionMode::VectorIntent,
        ..BuiltinConfig::default()
    })
    .await;
    assert!(reply_properties(&intent).contains(&"expression_intent".to_owned()));
}

#[tokio::test]
async fn focus_mode_is_checked_per_session_and_chat_type() {
    let world = World::new(BuiltinConfig {
        focus_mode: true,
        focus_mode_chat_scope: ChatScope::Group,
        focus_mode_sessions: vec!["session-s1".into()],
        ..BuiltinConfig::default()
    })
    .await;
    let has = |ctx: &ToolAvailabilityContext| {
        let specs = world.provider.list_tools_for_stage(ctx, Stage::Both);
        names(&specs).contains(&"fetch_history") && names(&specs).contains(&"switch_chat")
    };
    assert!(has(&group()));
    assert!(!has(&private()), "focus mode applies to group chats only");
    assert!(!has(&ctx("s2").availability()), "another session");
    let no_session = ToolAvailabilityContext {
        session_id: String::new(),
        stream_id: String::new(),
        ..group()
    };
    assert!(has(&no_session), "without a session the chat type decides");
    for (ctx, expected) in [(group(), true), (private(), false)] {
        assert_eq!(
            world
                .provider
                .is_available("fetch_history", &ctx)
                .await
                .unwrap(),
            expected
        );
    }
    let declared = world.provider.declared_tool_names().await.unwrap();
    assert!(declared.contains(&"fetch_history".to_owned()));
    let unfocused = World::new(BuiltinConfig::default()).await;
    let declared = unfocused.provider.declared_tool_names().await.unwrap();
    assert!(
        !declared.contains(&"fetch_history".to_owned())
            && declared.contains(&"view_forward_message".to_owned())
    );
}

#[tokio::test]
async fn is_available_agrees_with_listing() {
    let world = World::new(BuiltinConfig {
        focus_mode: true,
        focus_mode_chat_scope: ChatScope::Private,
        ..BuiltinConfig::default()
    })
    .await;
    for ctx in [group(), private(), ToolAvailabilityContext::default()] {
        let listed = world.provider.list_tools(&ctx).await.unwrap();
        for entry in BUILTIN_TOOL_ENTRIES.iter() {
            let available = world.provider.is_available(entry.name, &ctx).await.unwrap();
            assert_eq!(
                available,
                names(&listed).contains(&entry.name),
                "{} in {ctx:?}",
                entry.name
            );
        }
        assert!(!world.provider.is_available("weather", &ctx).await.unwrap());
    }
}

#[tokio::test]
async fn descriptions_are_overridable_and_config_is_validated() {
    let mut descriptions = BTreeMap::new();
    descriptions.insert("reply".to_owned(), "  Say something nice.  ".to_owned());
    let config = BuiltinConfig {
        descriptions,
        ..BuiltinConfig::default()
    };
    config.validate().unwrap();
    let world = World::new(config).await;
    let reply = world
        .provider
        .list_tools(&group())
        .await
        .unwrap()
        .into_iter()
        .find(|s| s.name == "reply")
        .unwrap();
    assert_eq!(reply.description, "Say something nice.");

    let bad_name = BuiltinConfig {
        descriptions: BTreeMap::from([("replyy".to_owned(), "x".to_owned())]),
        ..BuiltinConfig::default()
    };
    let error = bad_name.validate().unwrap_err().to_string();
    assert!(
        error.starts_with("builtin.descriptions.replyy: no built-in tool is called replyy"),
        "{error}"
    );
    let empty = BuiltinConfig {
        descriptions: BTreeMap::from([("wait".to_owned(), " ".to_owned())]),
        ..BuiltinConfig::default()
    };
    assert!(
        empty
            .validate()
            .unwrap_err()
            .to_string()
            .contains("must not be empty")
    );
    let zero = BuiltinConfig {
        max_consecutive_wait_count: 0,
        ..BuiltinConfig::default()
    };
    assert!(
        zero.validate()
            .unwrap_err()
            .to_string()
            .contains("max_consecutive_wait_count")
    );
    let limit = BuiltinConfig {
        memory_query_default_limit: 21,
        ..BuiltinConfig::default()
    };
    assert!(
        limit
            .validate()
            .unwrap_err()
            .to_string()
            .contains("outside 1..=20")
    );
}

#[test]
fn config_parses_from_toml_and_rejects_unknown_keys() {
    let config: BuiltinConfig = toml::from_str("").unwrap();
    assert_eq!(config, BuiltinConfig::default());
    assert_eq!(config.max_consecutive_wait_count, 3);
    assert_eq!(config.database.to_str(), Some("data/maitool.sqlite3"));
    let config: BuiltinConfig = toml::from_str(
        r#"
        focus_mode = true
        focus_mode_chat_scope = "group"
        expression_selection_mode = "vector_intent"
        database = ":memory:"
        [seed]
        memories = "seed/memories.jsonl"
        [descriptions]
        wait = "Hold on."
        "#,
    )
    .unwrap();
    assert!(config.focus_mode);
    assert_eq!(
        config.seed.memories.as_deref(),
        Some(std::path::Path::new("seed/memories.jsonl"))
    );
    let error = toml::from_str::<BuiltinConfig>("focus_mod = true")
        .unwrap_err()
        .to_string();
    assert!(error.contains("unknown field `focus_mod`"), "{error}");
}

#[tokio::test]
async fn the_provider_serves_through_a_real_registry() {
    let world = World::new(BuiltinConfig::default()).await;
    world.say("s1", "m1", "hello").await;
    let listed = world.registry.list_tools(&group()).await;
    assert!(names(&listed).contains(&"reply") && names(&listed).contains(&"weather"));
    let result = world
        .registry
        .invoke(
            ToolInvocation::new("reply", args(json!({"msg_id": "m1", "text": "hi!"}))),
            &ctx("s1"),
        )
        .await;
    assert!(result.success, "{}", result.error_message);
    // A gated tool is not routed to the built-ins at all.
    let result = world
        .registry
        .invoke(
            ToolInvocation::new("fetch_history", args(json!({}))),
            &ctx("s1"),
        )
        .await;
    assert_eq!(result.error_message, "tool not found: fetch_history");
    // Called directly, the provider says why.
    let direct = world
        .provider
        .invoke(
            ToolInvocation::new("fetch_history", args(json!({}))),
            &ctx("s1"),
        )
        .await
        .unwrap();
    assert_eq!(
        direct.error_message,
        "built-in tool fetch_history is not available: focus mode is not enabled for this chat"
    );
    let unknown = world
        .provider
        .invoke(ToolInvocation::new("nope", args(json!({}))), &ctx("s1"))
        .await;
    assert!(matches!(unknown, Err(ProviderError::ToolNotFound(name)) if name == "nope"));
}
