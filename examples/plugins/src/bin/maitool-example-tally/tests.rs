//! The tally plugin (macros, shared state, kv), run in-process by the SDK's test harness.

use maitool_sdk::testing::{PluginTest, TestError, ToolExecutionContext};
use maitool_sdk::{Value, json};

use super::tally;

#[tokio::test]
async fn votes_are_counted_per_chat_and_kept_in_the_kv_store() -> Result<(), TestError> {
    let t = PluginTest::new(tally())
        .grant("kv.set")
        .stream_id("chat-a")
        .start()
        .await?;
    for option in ["Tea", "coffee", " tea "] {
        assert!(t.call("vote", json!({ "option": option })).await?.success);
    }
    let other_chat = ToolExecutionContext {
        stream_id: "chat-b".into(),
        ..ToolExecutionContext::default()
    };
    let elsewhere = t
        .call_in("vote", json!({ "option": "coffee" }), other_chat)
        .await?;
    assert_eq!(
        elsewhere.structured_content,
        Some(json!({ "option": "coffee", "count": 1 }))
    );
    let results = t.call("tally_results", json!({})).await?;
    assert_eq!(results.content, "tea: 2, coffee: 1");
    let kv = t.kv();
    assert_eq!(kv["tally:chat-a:tea"], Value::from(2));
    assert_eq!(kv["tally:chat-b:coffee"], Value::from(1));
    Ok(())
}

#[tokio::test]
async fn a_vote_the_store_refuses_is_not_counted() -> Result<(), TestError> {
    // kv.set is declared by the plugin but not granted here.
    let t = PluginTest::new(tally()).start().await?;
    let refused = t.call("vote", json!({ "option": "tea" })).await?;
    assert!(!refused.success);
    assert!(
        refused
            .error_message
            .contains("plugin examples.tally is not granted capability kv.set"),
        "{refused:?}"
    );
    assert_eq!(
        t.call("tally_results", json!({})).await?.content,
        "no votes yet"
    );
    let empty = t.call("vote", json!({ "option": "  " })).await?;
    assert_eq!(empty.error_message, "the option is empty");
    Ok(())
}

#[tokio::test]
async fn the_macros_declare_names_descriptions_parameters_and_options() -> Result<(), TestError> {
    let t = PluginTest::new(tally()).start().await?;
    let names: Vec<String> = t.declarations().into_iter().map(|d| d.name).collect();
    assert_eq!(names, ["vote", "tally_results", "word_count"]);
    let vote = t.declaration("vote").unwrap();
    assert_eq!(
        vote.metadata["description"],
        "Vote for an option in this chat's poll; answers the option's new count."
    );
    assert_eq!(
        vote.metadata["parameters_raw"]["required"],
        json!(["option"])
    );
    assert_eq!(
        vote.metadata["parameters_raw"]["properties"]["option"]["description"],
        "The option voted for (case does not matter)."
    );
    let words = t.declaration("word_count").unwrap();
    assert_eq!(words.metadata["timeout_ms"], 2000);
    let counted = t
        .call("word_count", json!({ "text": "one two  three" }))
        .await?;
    assert_eq!(counted.content, "3");
    let missing = t.call("word_count", json!({})).await?;
    assert!(
        missing
            .error_message
            .contains("\"text\" is a required property"),
        "{missing:?}"
    );
    Ok(())
}
