//! Every handler through the provider, against a real in-memory store.

use std::sync::Arc;

use maitool_protocol::{
    ContentType, JsonObject, ToolContentItem, ToolExecutionContext, ToolExecutionResult,
    ToolInvocation,
};
use serde_json::{Value, json};

use crate::builtin::engine::{
    ChatType, ForwardNode, ImageData, NewMemory, NewMessage, PersonProfile, StreamInfo, TimeBound,
    ToolMedia,
};
use crate::builtin::store::{NewEmoji, Store};
use crate::builtin::{
    BuiltinConfig, BuiltinToolProvider, CONTEXT_MESSAGE_IDS, Discovery, StoreEngine,
};
use crate::provider::ToolProvider;

const PNG: &[u8] = &[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 9, 9, 9];

struct Fixture {
    provider: Arc<BuiltinToolProvider>,
    engine: Arc<StoreEngine>,
    store: Store,
}

async fn fixture(config: BuiltinConfig) -> Fixture {
    let store = Store::in_memory().await.unwrap();
    let engine = Arc::new(StoreEngine::new(store.clone()));
    let provider = BuiltinToolProvider::new(config, engine.clone(), Arc::new(Discovery::new()));
    Fixture {
        provider,
        engine,
        store,
    }
}

fn focus() -> BuiltinConfig {
    BuiltinConfig {
        focus_mode: true,
        ..BuiltinConfig::default()
    }
}

fn group_ctx(stream: &str) -> ToolExecutionContext {
    ToolExecutionContext {
        session_id: format!("session-{stream}"),
        stream_id: stream.into(),
        is_group_chat: Some(true),
        group_id: "g1".into(),
        user_id: "u1".into(),
        platform: "qq".into(),
        ..ToolExecutionContext::default()
    }
}

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(object) => object,
        other => panic!("arguments must be an object, got {other}"),
    }
}

impl Fixture {
    async fn call(
        &self,
        tool: &str,
        args: Value,
        ctx: &ToolExecutionContext,
    ) -> ToolExecutionResult {
        let invocation =
            ToolInvocation::new(tool, object(args)).with_call_id(format!("call-{tool}"));
        self.provider.invoke(invocation, ctx).await.unwrap()
    }

    async fn user_message(&self, stream: &str, id: &str, sender: &str, text: &str) {
        self.store
            .append_message(NewMessage {
                message_id: id.into(),
                stream_id: stream.into(),
                sender_id: sender.into(),
                sender_name: sender.to_uppercase(),
                text: text.into(),
                ..NewMessage::default()
            })
            .await
            .unwrap();
    }
}

fn ok(result: &ToolExecutionResult) {
    assert!(
        result.success,
        "{} failed: {}",
        result.tool_name, result.error_message
    );
}

fn failed_with(result: &ToolExecutionResult, text: &str) {
    assert!(
        !result.success,
        "{} unexpectedly succeeded: {}",
        result.tool_name, result.content
    );
    assert!(
        result.error_message.contains(text),
        "`{}` lacks `{text}`",
        result.error_message
    );
}

#[tokio::test]
async fn a_reply_lands_in_history_and_fetch_history_returns_it() {
    let fx = fixture(focus()).await;
    let ctx = group_ctx("s1");
    fx.user_message("s1", "m1", "u1", "anyone up for lunch?")
        .await;
    let reply = fx
        .call(
            "reply",
            json!({"msg_id": "m1", "text": "Count me in!"}),
            &ctx,
        )
        .await;
    ok(&reply);
    let sent_id = reply.structured_content.as_ref().unwrap()["message_id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(reply.content.contains("Count me in!"));

    let stored = fx.store.message(&sent_id).await.unwrap().unwrap();
    assert!(stored.is_bot);
    assert_eq!(stored.reply_to.as_deref(), Some("m1"));
    assert_eq!(stored.stream_id, "s1");

    let mut ctx_with_context = ctx.clone();
    ctx_with_context
        .metadata
        .insert(CONTEXT_MESSAGE_IDS.into(), json!(["m1"]));
    let history = fx
        .call("fetch_history", json!({"num": 5}), &ctx_with_context)
        .await;
    ok(&history);
    let messages = history.structured_content.as_ref().unwrap()["messages"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(messages.len(), 1, "m1 is in context already: {messages:?}");
    assert_eq!(messages[0]["message_id"], json!(sent_id));
    assert!(
        history.content.contains("Count me in!"),
        "{}",
        history.content
    );
    assert!(history.content.contains("(you)"));
}

#[tokio::test]
async fn reply_refuses_bad_input_with_specific_errors() {
    let fx = fixture(BuiltinConfig::default()).await;
    let ctx = group_ctx("s1");
    fx.user_message("s1", "m1", "u1", "hi").await;
    fx.user_message("s2", "elsewhere", "u2", "hi").await;
    failed_with(
        &fx.call("reply", json!({"text": "x"}), &ctx).await,
        "valid `msg_id`",
    );
    failed_with(
        &fx.call("reply", json!({"msg_id": "m1"}), &ctx).await,
        "`text`",
    );
    failed_with(
        &fx.call("reply", json!({"msg_id": "m9", "text": "x"}), &ctx)
            .await,
        "message m9 not found in this chat",
    );
    failed_with(
        &fx.call("reply", json!({"msg_id": "elsewhere", "text": "x"}), &ctx)
            .await,
        "not found in this chat",
    );
    failed_with(
        &fx.call(
            "reply",
            json!({"msg_id": "m1", "text": "x", "reply_style": "shouty"}),
            &ctx,
        )
        .await,
        "unknown reply_style `shouty`",
    );
    failed_with(
        &fx.call(
            "reply",
            json!({"msg_id": "m1", "text": "x", "set_quote": [1]}),
            &ctx,
        )
        .await,
        "argument `set_quote` must be a boolean",
    );
    // Nothing was sent.
    assert_eq!(
        fx.store.recent_messages("s1", 10, &[]).await.unwrap().len(),
        1
    );
}

#[tokio::test]
async fn reply_quotes_only_when_asked_and_allowed() {
    let fx = fixture(BuiltinConfig::default()).await;
    let ctx = group_ctx("s1");
    fx.user_message("s1", "m1", "u1", "hi").await;
    let plain = fx
        .call(
            "reply",
            json!({"msg_id": "m1", "text": "a", "set_quote": false, "reply_style": "brief"}),
            &ctx,
        )
        .await;
    ok(&plain);
    assert_eq!(plain.structured_content.unwrap()["quoted"], Value::Null);

    let no_quotes = fixture(BuiltinConfig {
        enable_reply_quote: false,
        ..BuiltinConfig::default()
    })
    .await;
    no_quotes.user_message("s1", "m1", "u1", "hi").await;
    let result = no_quotes
        .call("reply", json!({"msg_id": "m1", "text": "b"}), &ctx)
        .await;
    ok(&result);
    assert_eq!(result.structured_content.unwrap()["quoted"], Value::Null);
}

#[tokio::test]
async fn a_rich_reply_carries_images_an_emoji_and_mentions() {
    let fx = fixture(BuiltinConfig {
        enable_rich_reply: true,
        ..BuiltinConfig::default()
    })
    .await;
    let ctx = group_ctx("s1");
    fx.store
        .append_message(NewMessage {
            message_id: "pic".into(),
            stream_id: "s1".into(),
            sender_id: "u7".into(),
            images: vec![ImageData {
                mime_type: "image/png".into(),
                data: PNG.to_vec(),
                description: String::new(),
            }],
            ..NewMessage::default()
        })
        .await
        .unwrap();
    fx.store
        .add_emoji(NewEmoji {
            source: "smile".into(),
            data: Some(PNG.to_vec()),
            emotions: vec!["happy".into()],
            ..NewEmoji::default()
        })
        .await
        .unwrap();
    failed_with(
        &fx.call("reply", json!({"msg_id": "pic", "text_mode": "none"}), &ctx)
            .await,
        "text_mode=none needs at least one",
    );
    let result = fx
        .call(
            "reply",
            json!({
                "msg_id": "pic",
                "text_mode": "none",
                "attach_pic": [{"msg_id": "pic", "index": 0}],
                "attach_emoji": "happy",
                "attach_at": ["pic"],
            }),
            &ctx,
        )
        .await;
    ok(&result);
    let sent = result.structured_content.unwrap();
    assert_eq!(sent["image_count"], json!(2));
    assert_eq!(sent["mentions"], json!(["u7"]));
    assert_eq!(sent["text"], json!(""));
    failed_with(
        &fx.call(
            "reply",
            json!({"msg_id": "pic", "text": "x", "attach_pic": [{"msg_id": "pic", "index": 3}]}),
            &ctx,
        )
        .await,
        "no image at index 3",
    );
}

#[tokio::test]
async fn fetch_history_clamps_num_and_needs_focus_mode() {
    let fx = fixture(focus()).await;
    let ctx = group_ctx("s1");
    for n in 0..60 {
        fx.user_message("s1", &format!("m{n}"), "u1", "x").await;
    }
    let count = |result: ToolExecutionResult| {
        result.structured_content.unwrap()["messages"]
            .as_array()
            .unwrap()
            .len()
    };
    assert_eq!(
        count(fx.call("fetch_history", json!({"num": 500}), &ctx).await),
        50
    );
    assert_eq!(
        count(fx.call("fetch_history", json!({"num": 0}), &ctx).await),
        1
    );
    assert_eq!(count(fx.call("fetch_history", json!({}), &ctx).await), 10);
    failed_with(
        &fx.call("fetch_history", json!({"num": "many"}), &ctx).await,
        "argument `num` must be an integer",
    );

    let unfocused = fixture(BuiltinConfig::default()).await;
    failed_with(
        &unfocused.call("fetch_history", json!({}), &ctx).await,
        "focus mode is not enabled",
    );
    let only_other_sessions = fixture(BuiltinConfig {
        focus_mode_sessions: vec!["session-s9".into()],
        ..focus()
    })
    .await;
    failed_with(
        &only_other_sessions
            .call("fetch_history", json!({}), &ctx)
            .await,
        "focus mode is not enabled",
    );
    ok(&only_other_sessions
        .call("fetch_history", json!({}), &group_ctx("s9"))
        .await);
}

#[tokio::test]
async fn query_memory_finds_an_inserted_memory_by_full_text() {
    let fx = fixture(BuiltinConfig {
        memory_query_default_limit: 2,
        ..BuiltinConfig::default()
    })
    .await;
    let ctx = group_ctx("s1");
    for content in [
        "Alice adopted a cat named Mochi",
        "Alice's cat Mochi likes tuna",
        "Mochi sleeps on the keyboard",
        "Bob has a dog",
    ] {
        fx.store
            .add_memory(NewMemory {
                content: content.into(),
                ..NewMemory::default()
            })
            .await
            .unwrap();
    }
    let result = fx
        .call("query_memory", json!({"query": "Mochi cat"}), &ctx)
        .await;
    ok(&result);
    let structured = result.structured_content.unwrap();
    assert_eq!(
        structured["limit"],
        json!(2),
        "the configured default limit"
    );
    assert_eq!(structured["hits"].as_array().unwrap().len(), 2);
    assert!(result.content.contains("Mochi"), "{}", result.content);
    assert!(!result.content.contains("dog"));
    let result = fx
        .call(
            "query_memory",
            json!({"query": "Mochi", "limit": 100}),
            &ctx,
        )
        .await;
    assert_eq!(result.structured_content.unwrap()["limit"], json!(20));
    let result = fx
        .call("query_memory", json!({"query": "zebra"}), &ctx)
        .await;
    ok(&result);
    assert_eq!(result.content, "No matching long-term memories found.");
}

#[tokio::test]
async fn query_memory_modes_validate_and_fall_back_as_maibot() {
    let fx = fixture(BuiltinConfig::default()).await;
    let ctx = group_ctx("s1");
    fx.store
        .add_memory(NewMemory {
            content: "The team shipped version two".into(),
            time: Some(TimeBound::Text("2024-05-01".into())),
            ..NewMemory::default()
        })
        .await
        .unwrap();
    fx.store
        .upsert_person(PersonProfile {
            person_id: "p-eve".into(),
            person_name: "Eve".into(),
            ..PersonProfile::default()
        })
        .await
        .unwrap();
    failed_with(
        &fx.call("query_memory", json!({}), &ctx).await,
        "needs a `query`",
    );
    failed_with(
        &fx.call(
            "query_memory",
            json!({"query": "x", "mode": "psychic"}),
            &ctx,
        )
        .await,
        "unsupported memory query mode `psychic`",
    );
    failed_with(
        &fx.call("query_memory", json!({"query": "x", "mode": "time"}), &ctx)
            .await,
        "mode time needs",
    );

    let hybrid = fx
        .call(
            "query_memory",
            json!({"query": "shipped", "mode": "hybrid"}),
            &ctx,
        )
        .await;
    ok(&hybrid);
    let structured = hybrid.structured_content.unwrap();
    assert_eq!(
        (
            structured["mode"].clone(),
            structured["effective_mode"].clone()
        ),
        (json!("hybrid"), json!("search"))
    );
    assert_eq!(structured["fallback_reason"], json!("hybrid_without_time"));
    assert!(hybrid.content.contains("version two"));

    let by_time = fx
        .call(
            "query_memory",
            json!({"mode": "time", "time_start": "2024-05-01", "time_end": "2024-05-01"}),
            &ctx,
        )
        .await;
    ok(&by_time);
    assert!(
        by_time.content.contains("[fact · 2024-05-01 00:00]"),
        "{}",
        by_time.content
    );

    let person_miss = fx
        .call(
            "query_memory",
            json!({"query": "shipped", "person_name": "Eve"}),
            &ctx,
        )
        .await;
    ok(&person_miss);
    let structured = person_miss.structured_content.unwrap();
    assert_eq!(structured["person_id"], json!("p-eve"));
    assert_eq!(structured["fallback_reason"], json!("person_filter_miss"));
    assert_eq!(structured["primary_hit_count"], json!(0));
    assert_eq!(structured["hits"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn query_person_profile_clamps_its_limit_and_defaults_to_the_private_partner() {
    let fx = fixture(BuiltinConfig::default()).await;
    fx.store
        .upsert_person(PersonProfile {
            person_id: "p1".into(),
            person_name: "Alice".into(),
            platform: "qq".into(),
            user_id: "u1".into(),
            profile: "Friendly; drinks tea.".into(),
            traits: (1..=30).map(|n| format!("trait {n}")).collect(),
            ..PersonProfile::default()
        })
        .await
        .unwrap();
    let group = group_ctx("s1");
    let traits = |result: &ToolExecutionResult| {
        result.structured_content.as_ref().unwrap()["profile"]["traits"]
            .as_array()
            .unwrap()
            .len()
    };
    let result = fx
        .call(
            "query_person_profile",
            json!({"person_name": "alice", "limit": 100}),
            &group,
        )
        .await;
    ok(&result);
    assert_eq!(traits(&result), 20);
    assert!(result.content.contains("Profile: Friendly; drinks tea."));
    assert_eq!(
        traits(
            &fx.call(
                "query_person_profile",
                json!({"person_id": "p1", "limit": 0}),
                &group
            )
            .await
        ),
        1
    );
    assert_eq!(
        traits(
            &fx.call("query_person_profile", json!({"person_id": "p1"}), &group)
                .await
        ),
        8
    );
    let missing = fx
        .call(
            "query_person_profile",
            json!({"person_name": "Zed"}),
            &group,
        )
        .await;
    ok(&missing);
    assert_eq!(missing.content, "No profile found for person_name Zed.");
    failed_with(
        &fx.call("query_person_profile", json!({}), &group).await,
        "needs `person_id` or `person_name`",
    );
    let private = ToolExecutionContext {
        is_group_chat: Some(false),
        group_id: String::new(),
        ..group
    };
    let partner = fx.call("query_person_profile", json!({}), &private).await;
    ok(&partner);
    assert!(
        partner.content.starts_with("Person: Alice"),
        "{}",
        partner.content
    );
}

#[tokio::test]
async fn send_emoji_sends_the_chosen_image_and_returns_it_as_an_image_item() {
    let fx = fixture(BuiltinConfig::default()).await;
    let ctx = group_ctx("s1");
    failed_with(
        &fx.call("send_emoji", json!({}), &ctx).await,
        "the emoji library is empty",
    );
    fx.store
        .add_emoji(NewEmoji {
            source: "a".into(),
            data: Some(PNG.to_vec()),
            description: "cat grinning".into(),
            emotions: vec!["happy".into()],
            ..NewEmoji::default()
        })
        .await
        .unwrap();
    fx.store
        .add_emoji(NewEmoji {
            source: "b".into(),
            data: Some(b"GIF89a-sad".to_vec()),
            description: "crying frog".into(),
            emotions: vec!["sad".into()],
            ..NewEmoji::default()
        })
        .await
        .unwrap();
    let result = fx.call("send_emoji", json!({"emotion": "sad"}), &ctx).await;
    ok(&result);
    let item = &result.content_items[0];
    assert_eq!(item.content_type, ContentType::Image);
    assert_eq!(item.data.0, b"GIF89a-sad");
    assert_eq!(item.mime_type, "image/gif");
    assert_eq!(
        result.structured_content.as_ref().unwrap()["matched_emotion"],
        json!("sad")
    );
    let history = fx.store.recent_messages("s1", 5, &[]).await.unwrap();
    assert_eq!(
        (history.len(), history[0].image_count, history[0].is_bot),
        (1, 1, true)
    );
    let by_text = fx
        .call("send_emoji", json!({"description": "grinning"}), &ctx)
        .await;
    assert_eq!(by_text.content_items[0].data.0, PNG);
}

#[tokio::test]
async fn send_image_resolves_message_images_and_tool_media() {
    let fx = fixture(BuiltinConfig::default()).await;
    let ctx = group_ctx("s1");
    fx.store
        .append_message(NewMessage {
            message_id: "pic".into(),
            stream_id: "s1".into(),
            images: vec![
                ImageData {
                    mime_type: "image/png".into(),
                    data: vec![1],
                    description: String::new(),
                },
                ImageData {
                    mime_type: "image/png".into(),
                    data: PNG.to_vec(),
                    description: String::new(),
                },
            ],
            ..NewMessage::default()
        })
        .await
        .unwrap();
    ok(&fx
        .call("send_image", json!({"msg_id": "pic", "index": 1}), &ctx)
        .await);
    let sent = fx
        .store
        .recent_messages("s1", 1, &[])
        .await
        .unwrap()
        .remove(0);
    assert_eq!(
        fx.store
            .message_image(&sent.message_id, 0)
            .await
            .unwrap()
            .unwrap()
            .data,
        PNG
    );

    fx.engine
        .store()
        .put_tool_media(
            &ctx.session_id,
            vec![
                ToolMedia {
                    media_id: "tool_result:c1:1".into(),
                    item: ToolContentItem::image(PNG.to_vec(), "image/png"),
                },
                ToolMedia {
                    media_id: "tool_result:c1:2".into(),
                    item: ToolContentItem::resource_link("https://x", "x"),
                },
            ],
        )
        .await
        .unwrap();
    ok(&fx
        .call(
            "send_image",
            json!({"media_index": "tool_result:c1:1"}),
            &ctx,
        )
        .await);
    failed_with(
        &fx.call(
            "send_image",
            json!({"media_index": "tool_result:c1:2"}),
            &ctx,
        )
        .await,
        "not an image",
    );
    failed_with(
        &fx.call("send_image", json!({"media_index": "c1:1"}), &ctx)
            .await,
        "must look like tool_result:<call_id>:<n>",
    );
    failed_with(
        &fx.call(
            "send_image",
            json!({"media_index": "tool_result:c9:1"}),
            &ctx,
        )
        .await,
        "no tool result media",
    );
    failed_with(
        &fx.call("send_image", json!({}), &ctx).await,
        "name the image with `msg_id`",
    );
}

#[tokio::test]
async fn view_forward_message_opens_nested_bundles_by_path() {
    let fx = fixture(BuiltinConfig::default()).await;
    let ctx = group_ctx("s1");
    let deep = ForwardNode {
        sender_name: "Carol".into(),
        text: "the bottom".into(),
        ..ForwardNode::default()
    };
    let nested = ForwardNode {
        sender_name: "Bob".into(),
        text: "see below".into(),
        forward: vec![deep],
        ..ForwardNode::default()
    };
    let top = ForwardNode {
        sender_name: "Alice".into(),
        text: "first".into(),
        time: Some(0.0),
        ..ForwardNode::default()
    };
    fx.store
        .append_message(NewMessage {
            message_id: "fw".into(),
            stream_id: "s1".into(),
            forward: vec![top, nested],
            ..NewMessage::default()
        })
        .await
        .unwrap();
    let level0 = fx
        .call("view_forward_message", json!({"msg_id": "fw"}), &ctx)
        .await;
    ok(&level0);
    assert!(
        level0.content.contains("[0] 1970-01-01 00:00 Alice: first"),
        "{}",
        level0.content
    );
    assert!(
        level0.content.contains("open it with path [1]"),
        "{}",
        level0.content
    );
    let level1 = fx
        .call(
            "view_forward_message",
            json!({"msg_id": "fw", "path": [1]}),
            &ctx,
        )
        .await;
    assert!(
        level1.content.contains("Carol: the bottom"),
        "{}",
        level1.content
    );
    failed_with(
        &fx.call(
            "view_forward_message",
            json!({"msg_id": "fw", "path": [-1]}),
            &ctx,
        )
        .await,
        "at least 0",
    );
    failed_with(
        &fx.call("view_forward_message", json!({"msg_id": "nope"}), &ctx)
            .await,
        "carries no forwarded messages",
    );
}

#[tokio::test]
async fn switch_chat_moves_focus_and_brings_unread_messages() {
    let fx = fixture(focus()).await;
    let ctx = group_ctx("s1");
    fx.store
        .upsert_stream(StreamInfo {
            stream_id: "s2".into(),
            platform: "qq".into(),
            chat_type: Some(ChatType::Private),
            target_id: "u42".into(),
            name: "Dana".into(),
        })
        .await
        .unwrap();
    for n in 0..25 {
        fx.user_message("s2", &format!("d{n}"), "u42", &format!("msg {n}"))
            .await;
    }
    let switched = fx
        .call(
            "switch_chat",
            json!({"platform": "qq", "id": "u42", "type": "private"}),
            &ctx,
        )
        .await;
    ok(&switched);
    assert!(
        switched
            .content
            .starts_with("Switched to chat s2 (Dana). 25 unread message(s); the newest 20"),
        "{}",
        switched.content
    );
    assert!(switched.pauses_execution());
    assert_eq!(
        fx.engine
            .session_state(&ctx.session_id)
            .await
            .unwrap()
            .focused_stream
            .as_deref(),
        Some("s2")
    );
    let again = fx.call("switch_chat", json!({"chat_id": "s2"}), &ctx).await;
    assert!(
        again.content.contains("0 unread message(s)."),
        "{}",
        again.content
    );
    failed_with(
        &fx.call("switch_chat", json!({"chat_id": "s1"}), &ctx).await,
        "no chat with id s1",
    );
    fx.user_message("s1", "m", "u1", "x").await;
    failed_with(
        &fx.call("switch_chat", json!({"chat_id": "s1"}), &ctx).await,
        "already in chat s1",
    );
    failed_with(
        &fx.call("switch_chat", json!({"platform": "qq"}), &ctx)
            .await,
        "needs `chat_id`",
    );
    failed_with(
        &fx.call(
            "switch_chat",
            json!({"platform": "qq", "id": "1", "type": "channel"}),
            &ctx,
        )
        .await,
        "unknown chat type `channel`",
    );
}

#[tokio::test]
async fn wait_pauses_until_the_consecutive_limit_then_rests() {
    let fx = fixture(BuiltinConfig {
        max_consecutive_wait_count: 3,
        ..BuiltinConfig::default()
    })
    .await;
    let ctx = group_ctx("s1");
    for expected in 1..=3u64 {
        let result = fx.call("wait", json!({"seconds": 5}), &ctx).await;
        ok(&result);
        assert!(result.pauses_execution());
        assert_eq!(result.metadata["consecutive_wait_count"], json!(expected));
        assert_eq!(result.metadata["max_consecutive_wait_count"], json!(3));
        assert!(!result.metadata.contains_key("wait_limit_reached"));
    }
    let state = fx.engine.session_state(&ctx.session_id).await.unwrap();
    assert_eq!(
        (
            state.consecutive_waits,
            state.waiting.as_ref().unwrap().seconds
        ),
        (3, 5)
    );
    let limited = fx.call("wait", json!({"seconds": 5}), &ctx).await;
    ok(&limited);
    assert!(limited.pauses_execution());
    assert_eq!(limited.metadata["wait_limit_reached"], json!(true));
    assert_eq!(limited.metadata["wait_rest"], json!(true));
    assert!(
        fx.engine
            .session_state(&ctx.session_id)
            .await
            .unwrap()
            .resting
    );
    // Resting ends the streak: the next wait starts over.
    let after_rest = fx.call("wait", json!({}), &ctx).await;
    assert_eq!(after_rest.metadata["consecutive_wait_count"], json!(1));
    assert_eq!(
        after_rest.metadata["wait_seconds"],
        json!(30),
        "the default wait"
    );
    // Other sessions keep their own count.
    let other = fx
        .call("wait", json!({"seconds": 1}), &group_ctx("s2"))
        .await;
    assert_eq!(other.metadata["consecutive_wait_count"], json!(1));
}

#[tokio::test]
async fn finish_ends_the_round_and_pauses() {
    let fx = fixture(BuiltinConfig::default()).await;
    let ctx = group_ctx("s1");
    let result = fx
        .call("finish", json!({"reason": "nothing to add"}), &ctx)
        .await;
    ok(&result);
    assert!(result.pauses_execution());
    assert_eq!(result.metadata["finish_round"], json!(true));
    let state = fx.engine.session_state(&ctx.session_id).await.unwrap();
    assert_eq!(
        (state.rounds_ended, state.last_end_reason.as_str()),
        (1, "nothing to add")
    );
}

#[tokio::test]
async fn tool_search_without_a_registry_searches_the_builtin_deferred_tools() {
    let fx = fixture(BuiltinConfig::default()).await;
    let ctx = group_ctx("s1");
    let first = fx
        .call("tool_search", json!({"query": "forward"}), &ctx)
        .await;
    ok(&first);
    assert_eq!(
        first.structured_content.as_ref().unwrap()["matched_tool_names"],
        json!(["view_forward_message"])
    );
    assert!(
        first
            .content
            .contains("- view_forward_message (newly discovered)"),
        "{}",
        first.content
    );
    let second = fx
        .provider
        .invoke(
            ToolInvocation::new("tool_search", object(json!({"query": "view"})))
                .with_call_id("call-2"),
            &ctx,
        )
        .await
        .unwrap();
    assert!(
        second
            .content
            .contains("- view_forward_message (discovered earlier)"),
        "{}",
        second.content
    );
    let none = fx
        .call("tool_search", json!({"query": "teleport"}), &ctx)
        .await;
    ok(&none);
    assert!(none.content.starts_with("No deferred tools match"));
    failed_with(
        &fx.call("tool_search", json!({"query": "  "}), &ctx).await,
        "non-empty `query`",
    );
    assert_eq!(
        fx.provider
            .discovery()
            .discovered(&ctx.session_id)
            .await
            .unwrap()
            .into_iter()
            .collect::<Vec<_>>(),
        vec!["view_forward_message"]
    );
}
