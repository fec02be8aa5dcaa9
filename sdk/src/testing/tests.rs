//! The harness itself: each capability, the lifecycle, and what the runner registers.

use std::sync::Arc;

use maitool_protocol::wire::ErrorCode;
use serde_json::{Value, json};

use super::{PluginTest, TestError};
use crate::prelude::*;

#[crate::args]
struct KeyArgs {
    key: String,
    #[serde(default)]
    value: Option<Value>,
}

/// A plugin whose tools call capabilities with the SDK's raw client.
fn store() -> Plugin {
    Plugin::new("tests.store", "1.0.0")
        .tool(Tool::new(
            "put",
            "Set a key.",
            |a: KeyArgs, ctx: ToolContext| async move {
                let args = json!({ "key": a.key, "value": a.value });
                let Value::Object(args) = args else {
                    unreachable!()
                };
                let answer = ctx.host().call("kv.set", args).await?;
                Ok(ToolOutput::structured(answer))
            },
        ))
        .tool(Tool::new(
            "get",
            "Get a key.",
            |a: KeyArgs, ctx: ToolContext| async move {
                let Value::Object(args) = json!({ "key": a.key }) else {
                    unreachable!()
                };
                Ok(ToolOutput::structured(
                    ctx.host().call("kv.get", args).await?,
                ))
            },
        ))
        .tool(Tool::new(
            "list",
            "List keys.",
            |a: KeyArgs, ctx: ToolContext| async move {
                let Value::Object(args) = json!({ "prefix": a.key }) else {
                    unreachable!()
                };
                Ok(ToolOutput::structured(
                    ctx.host().call("kv.list", args).await?,
                ))
            },
        ))
        .tool(Tool::new(
            "say",
            "Say something in this chat.",
            |a: KeyArgs, ctx: ToolContext| async move {
                let sent = ctx.send().text(a.key).await?;
                Ok(ToolOutput::structured(
                    json!({ "message_id": sent.message_id }),
                ))
            },
        ))
}

#[tokio::test]
async fn kv_calls_reach_the_test_store_and_answer_as_the_host() {
    let t = PluginTest::new(store())
        .grant("kv.*")
        .kv_entry("greeting", json!("hello"))
        .start()
        .await
        .unwrap();
    let got = t.call("get", json!({ "key": "greeting" })).await.unwrap();
    assert_eq!(got.structured_content, Some(json!("hello")), "{got:?}");
    let set = t
        .call("put", json!({ "key": "count", "value": {"n": 3} }))
        .await
        .unwrap();
    assert_eq!(set.structured_content, Some(json!(true)));
    assert_eq!(t.kv()["count"], json!({"n": 3}));
    let missing = t.call("get", json!({ "key": "nothing" })).await.unwrap();
    // `null` content is left out on the wire.
    assert_eq!(
        missing.structured_content.unwrap_or(Value::Null),
        Value::Null
    );
    let listed = t.call("list", json!({ "key": "g" })).await.unwrap();
    assert_eq!(listed.structured_content, Some(json!(["greeting"])));
}

#[tokio::test]
async fn an_ungranted_capability_is_denied_with_the_hosts_code_and_message() {
    let t = PluginTest::new(store())
        .grant("send.text")
        .start()
        .await
        .unwrap();
    let denied = t.call("get", json!({ "key": "greeting" })).await.unwrap();
    assert!(!denied.success);
    assert!(
        denied
            .error_message
            .contains("plugin tests.store is not granted capability kv.get"),
        "{denied:?}"
    );
    let calls = t.capability_calls();
    assert_eq!(calls.len(), 1);
    let err = calls[0].outcome.as_ref().unwrap_err();
    assert_eq!(err.code, ErrorCode::CapabilityDenied);
    assert!(t.kv().is_empty());
}

#[tokio::test]
async fn sent_messages_are_captured_with_the_calls_stream() {
    let t = PluginTest::new(store())
        .grant("send.text")
        .stream_id("stream-9")
        .start()
        .await
        .unwrap();
    let said = t.call("say", json!({ "key": "hi there" })).await.unwrap();
    assert!(said.success, "{said:?}");
    assert_eq!(
        said.structured_content.unwrap()["message_id"],
        "test-message-1"
    );
    let sent = t.sent();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].capability, "send.text");
    assert_eq!(sent[0].stream_id, "stream-9");
    assert_eq!(sent[0].text, "hi there");
}

#[crate::config]
#[derive(Default)]
#[serde(default, deny_unknown_fields)]
struct Greeting {
    word: String,
}

impl PluginConfig for Greeting {
    fn validate(&self) -> Result<(), String> {
        if self.word == "bad" {
            return Err("the word is bad".into());
        }
        Ok(())
    }
}

#[crate::args]
struct Nothing {}

fn greeter() -> Plugin {
    Plugin::new("tests.greeter", "1.0.0")
        .config::<Greeting>()
        .tool(Tool::new(
            "greet",
            "Greet.",
            |_: Nothing, ctx: ToolContext| async move {
                let config = ctx.config::<Greeting>().unwrap_or_default();
                Ok(ToolOutput::text(format!(
                    "{} {} in {}",
                    config.word,
                    ctx.user_id(),
                    ctx.group_id()
                )))
            },
        ))
}

#[tokio::test]
async fn configuration_is_loaded_validated_and_updated() {
    let t = PluginTest::new(greeter())
        .config(json!({ "word": "hello" }))
        .group("g-1")
        .user_id("u-1")
        .start()
        .await
        .unwrap();
    assert_eq!(
        t.call("greet", json!({})).await.unwrap().content,
        "hello u-1 in g-1"
    );
    t.update_config(json!({ "word": "hi" })).await.unwrap();
    assert_eq!(
        t.call("greet", json!({})).await.unwrap().content,
        "hi u-1 in g-1"
    );
    let refused = t.update_config(json!({ "word": "bad" })).await.unwrap_err();
    assert!(refused.to_string().contains("the word is bad"), "{refused}");
    assert_eq!(
        t.call("greet", json!({})).await.unwrap().content,
        "hi u-1 in g-1"
    );
    t.stop().await.unwrap();
}

#[tokio::test]
async fn a_plugin_that_does_not_load_fails_the_start_with_the_reason() {
    let typo = PluginTest::new(greeter())
        .config(json!({ "wrod": "hello" }))
        .start()
        .await
        .unwrap_err();
    assert!(
        matches!(&typo, TestError::LoadFailed { reason, .. } if reason.contains("unknown field `wrod`")),
        "{typo}"
    );
    let hook = greeter().on_load(|_ctx| async { Err(PluginError::new("no database")) });
    let failed = PluginTest::new(hook).start().await.unwrap_err();
    assert!(
        failed.to_string().contains("on_load failed: no database"),
        "{failed}"
    );
}

#[tokio::test]
async fn calls_to_unknown_tools_and_bad_arguments_are_refused_before_the_plugin() {
    let seen = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = seen.clone();
    let plugin = Plugin::new("tests.strict", "1.0.0").tool(Tool::new(
        "need_key",
        "Needs a key.",
        move |_: KeyArgs, _ctx: ToolContext| {
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            async { Ok(ToolOutput::text("ok")) }
        },
    ));
    let t = PluginTest::new(plugin).start().await.unwrap();
    let unknown = t.call("nope", json!({})).await.unwrap_err();
    assert!(
        unknown.to_string().contains("registered: need_key"),
        "{unknown}"
    );
    let refused = t.call("need_key", json!({ "key": 5 })).await.unwrap();
    assert!(!refused.success);
    assert!(
        refused
            .error_message
            .starts_with("invalid arguments for tool need_key: at /key:"),
        "{refused:?}"
    );
    assert_eq!(refused.metadata["error_kind"], "invalid_arguments");
    assert_eq!(seen.load(std::sync::atomic::Ordering::SeqCst), 0);
    assert!(
        t.call("need_key", json!({ "key": "k" }))
            .await
            .unwrap()
            .success
    );
    assert_eq!(seen.load(std::sync::atomic::Ordering::SeqCst), 1);
}

// Declared by macro and by builder: the runner registers the same components.
#[crate::tool(name = "echo", core, timeout_ms = 1500)]
/// Send the text back.
async fn echo(
    #[doc = "The text."] text: String,
    #[doc = "How often (default 1)."] times: Option<u32>,
) -> Result<String, ToolError> {
    Ok(text.repeat(times.unwrap_or(1) as usize))
}

#[crate::args]
struct EchoArgs {
    /// The text.
    text: String,
    /// How often (default 1).
    times: Option<u32>,
}

#[tokio::test]
async fn the_runner_registers_the_same_declaration_for_the_macro_and_the_builder() {
    let by_macro = PluginTest::new(Plugin::new("tests.echo", "1.0.0").tool(echo_tool()))
        .start()
        .await
        .unwrap();
    let builder = Tool::new(
        "echo",
        "Send the text back.",
        |a: EchoArgs, _ctx: ToolContext| async move {
            Ok(ToolOutput::text(
                a.text.repeat(a.times.unwrap_or(1) as usize),
            ))
        },
    )
    .core_tool()
    .timeout(std::time::Duration::from_millis(1500));
    let by_builder = PluginTest::new(Plugin::new("tests.echo", "1.0.0").tool(builder))
        .start()
        .await
        .unwrap();
    assert_eq!(by_macro.declarations(), by_builder.declarations());
    assert_eq!(by_macro.declarations()[0].metadata["timeout_ms"], 1500);
    for t in [&by_macro, &by_builder] {
        let result = t
            .call("echo", json!({ "text": "ab", "times": 2 }))
            .await
            .unwrap();
        assert_eq!(result.content, "abab");
    }
}

#[tokio::test]
async fn a_legacy_action_gets_its_data_reasoning_and_chat_as_from_the_host() {
    let plugin = Plugin::new("tests.legacy", "1.0.0").action(
        Action::new("greet", "Greet someone.", |input: ActionInput| async move {
            (
                true,
                format!(
                    "{} / {} / {}",
                    input.param("name"),
                    input.reasoning,
                    input.chat_id
                ),
            )
        })
        .parameter("name", "Who"),
    );
    let context = crate::testing::ToolExecutionContext {
        stream_id: "stream-3".into(),
        reasoning: "someone joined".into(),
        ..crate::testing::ToolExecutionContext::default()
    };
    let t = PluginTest::new(plugin)
        .context(context)
        .start()
        .await
        .unwrap();
    let greeted = t.call("greet", json!({ "name": "Ann" })).await.unwrap();
    assert!(greeted.success, "{greeted:?}");
    assert_eq!(greeted.content, "Ann / someone joined / stream-3");
}

#[tokio::test]
async fn a_tool_past_its_timeout_fails_the_call_and_a_panic_is_a_failed_result() {
    let plugin = Plugin::new("tests.slow", "1.0.0")
        .tool(
            Tool::new("slow", "Too slow.", |_: Nothing, _ctx: ToolContext| async {
                crate::time::sleep(std::time::Duration::from_secs(30)).await;
                Ok(ToolOutput::text("late"))
            })
            .timeout(std::time::Duration::from_millis(50)),
        )
        .tool(Tool::new(
            "boom",
            "Panics.",
            |_: Nothing, _ctx: ToolContext| async {
                if true {
                    panic!("kaboom");
                }
                Ok(ToolOutput::text("unreachable"))
            },
        ));
    let t = PluginTest::new(plugin).start().await.unwrap();
    let late = t.call("slow", json!({})).await.unwrap_err();
    assert!(
        matches!(&late, TestError::Call(err) if err.code == ErrorCode::Timeout),
        "{late}"
    );
    let boom = t.call("boom", json!({})).await.unwrap();
    assert!(!boom.success);
    assert!(boom.error_message.contains("kaboom"), "{boom:?}");
    // The runner keeps serving after both.
    assert!(t.call("boom", json!({})).await.is_ok());
}

#[tokio::test]
async fn stop_unloads_the_plugin() {
    let unloaded = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = unloaded.clone();
    let plugin = greeter().on_unload(move || {
        let flag = flag.clone();
        async move { flag.store(true, std::sync::atomic::Ordering::SeqCst) }
    });
    let t = PluginTest::new(plugin).start().await.unwrap();
    assert!(!unloaded.load(std::sync::atomic::Ordering::SeqCst));
    t.stop().await.unwrap();
    assert!(unloaded.load(std::sync::atomic::Ordering::SeqCst));
}
