use maitool_sdk::prelude::*;
use maitool_sdk::testing::{PluginTest, TestError};

use super::*;

#[tokio::test]
async fn roll_says_the_dice_in_the_chat_and_stops_the_message() -> Result<(), TestError> {
    let t = PluginTest::new(chat()).grant("send.text").start().await?;
    let rolled = t.command("/roll 3d6").await?;
    assert!(rolled.success, "{rolled:?}");
    assert!(rolled.intercepted);
    let reply = rolled.reply.unwrap();
    assert!(reply.starts_with("test-user rolled 3d6: ["), "{reply}");
    assert_eq!(t.sent()[0].text, reply);
    assert!(t.command("/r").await?.success, "the alias");
    let refused = t.command("/roll 0d6").await?;
    assert!(!refused.success);
    Ok(())
}

#[tokio::test]
async fn remember_keeps_notes_per_stream_and_lets_the_message_go_on() -> Result<(), TestError> {
    let t = PluginTest::new(chat()).grant("kv.*").start().await?;
    t.command("/remember buy milk").await?;
    let second = t.command("/remember call Bob").await?;
    assert_eq!(second.reply.as_deref(), Some("noted (2 so far): call Bob"));
    assert!(!second.intercepted);
    assert_eq!(t.kv()["notes:test-stream"], json!(["buy milk", "call Bob"]));
    Ok(())
}

#[tokio::test]
async fn the_filter_stops_banned_words_and_redact_hides_passwords() -> Result<(), TestError> {
    let t = PluginTest::new(chat())
        .config(json!({ "banned": ["casino"] }))
        .start()
        .await?;
    let spam = t
        .emit(
            EventType::OnMessagePreProcess,
            Some(t.message_dict("Best CASINO here")),
        )
        .await?;
    assert_eq!(spam.stopped_by.as_deref(), Some("spam_filter"));
    let secret = t
        .emit(
            EventType::OnMessagePreProcess,
            Some(t.message_dict("my password: hunter2")),
        )
        .await?;
    assert!(secret.continued);
    let names: Vec<&str> = secret.handlers.iter().map(|h| h.name.as_str()).collect();
    assert_eq!(names, ["spam_filter", "redact"]);
    assert_eq!(
        secret.message.unwrap()["processed_plain_text"],
        "my password: [redacted]"
    );
    Ok(())
}

#[tokio::test]
async fn relay_hands_the_host_a_message_through_its_gateway() -> Result<(), TestError> {
    let t = PluginTest::new(chat()).start().await?;
    let result = t
        .call(
            "relay",
            json!({ "user_id": "bob", "text": "/roll", "platform": "irc", "group": "rust" }),
        )
        .await?;
    assert!(result.success, "{result:?}");
    let routed = t.routed();
    assert_eq!(routed.len(), 1);
    let (gateway, message) = &routed[0];
    assert_eq!(gateway, "inbox");
    assert_eq!(message["processed_plain_text"], "/roll");
    assert_eq!(message["platform"], "irc");
    assert_eq!(message["message_info"]["user_info"]["user_id"], "bob");
    assert_eq!(message["message_info"]["group_info"]["group_id"], "rust");
    Ok(())
}
