//! The notes plugin (kv store, send.text, data directory), run in-process by the SDK's test
//! harness (the real runner).

use maitool_sdk::json;
use maitool_sdk::testing::{PluginTest, TestError};

use super::notes;

#[tokio::test]
async fn a_remembered_note_is_in_the_kv_store_and_recalled() -> Result<(), TestError> {
    let t = PluginTest::new(notes()).grant("kv.*").start().await?;
    let stored = t
        .call("remember", json!({ "key": "milk", "text": "buy 2 litres" }))
        .await?;
    assert_eq!(stored.content, "remembered milk");
    assert_eq!(t.kv()["note:milk"], json!({ "text": "buy 2 litres" }));
    let recalled = t.call("recall", json!({ "key": "milk" })).await?;
    assert_eq!(recalled.content, "buy 2 litres");
    let missing = t.call("recall", json!({ "key": "eggs" })).await?;
    assert!(!missing.success);
    assert_eq!(missing.error_message, "no note named eggs");
    Ok(())
}

#[tokio::test]
async fn a_note_the_store_already_holds_is_recalled() -> Result<(), TestError> {
    let t = PluginTest::new(notes())
        .grant("kv.get")
        .kv_entry("note:motd", json!({ "text": "welcome back" }))
        .start()
        .await?;
    assert_eq!(
        t.call("recall", json!({ "key": "motd" })).await?.content,
        "welcome back"
    );
    Ok(())
}

#[tokio::test]
async fn announce_sends_to_the_calls_stream() -> Result<(), TestError> {
    let t = PluginTest::new(notes())
        .grant("send.text")
        .stream_id("qq:group:42")
        .start()
        .await?;
    let announced = t
        .call("announce", json!({ "text": "meeting at 5" }))
        .await?;
    assert!(announced.success, "{announced:?}");
    assert_eq!(announced.content, "announced to qq:group:42");
    let sent = t.sent();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].stream_id, "qq:group:42");
    assert_eq!(sent[0].text, "meeting at 5");
    Ok(())
}

#[tokio::test]
async fn capabilities_the_operator_did_not_grant_are_denied() -> Result<(), TestError> {
    // kv only: sending is not granted, although the plugin declares it.
    let t = PluginTest::new(notes()).grant("kv.*").start().await?;
    let denied = t.call("announce", json!({ "text": "hello" })).await?;
    assert!(!denied.success);
    assert!(
        denied
            .error_message
            .contains("plugin examples.notes is not granted capability send.text"),
        "{denied:?}"
    );
    assert!(t.sent().is_empty());
    // Nothing granted at all: the kv store is out of reach too.
    let t = PluginTest::new(notes()).start().await?;
    let denied = t
        .call("remember", json!({ "key": "k", "text": "v" }))
        .await?;
    assert!(
        denied.error_message.contains("E_CAPABILITY_DENIED"),
        "{denied:?}"
    );
    assert!(t.kv().is_empty());
    Ok(())
}

#[tokio::test]
async fn export_writes_into_the_data_directory_and_refuses_bad_names() -> Result<(), TestError> {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let t = PluginTest::new(notes())
        .data_dir(dir.path())
        .start()
        .await?;
    let exported = t
        .call(
            "export_note",
            json!({ "name": "todo", "text": "write tests" }),
        )
        .await?;
    assert!(exported.success, "{exported:?}");
    let written = std::fs::read_to_string(dir.path().join("todo.txt")).expect("the note file");
    assert_eq!(written, "write tests");
    let escape = t
        .call("export_note", json!({ "name": "../evil", "text": "x" }))
        .await?;
    assert!(!escape.success);
    assert!(
        escape.error_message.starts_with("invalid note name"),
        "{escape:?}"
    );
    // Without a data directory the tool says so.
    let t = PluginTest::new(notes()).start().await?;
    let nowhere = t
        .call("export_note", json!({ "name": "todo", "text": "x" }))
        .await?;
    assert!(
        nowhere.error_message.contains("no data directory"),
        "{nowhere:?}"
    );
    Ok(())
}
