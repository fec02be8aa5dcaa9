//! Seeding the store from files, and the provider as the binary builds it.

use std::path::Path;

use maitool_protocol::{ToolExecutionContext, ToolInvocation};
use serde_json::json;

use super::fixtures::{PNG, args, ctx};
use crate::builtin::engine::{EmojiQuery, MemoryMode, MemoryQuery, PersonLookup};
use crate::builtin::store::Store;
use crate::builtin::{BuiltinConfig, SeedConfig, SeedError, default_provider, seed_store};
use crate::provider::ToolProvider;

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// A seed folder with every kind of file.
fn seed_files(dir: &Path) -> SeedConfig {
    let memories = write(
        dir,
        "memories.jsonl",
        r#"{"content": "Alice moved to Lisbon in spring", "person_id": "p-alice", "time": "2024-04-01"}

{"kind": "episode", "title": "Picnic", "content": "The group had a picnic by the river", "time": 1717200000}
"#,
    );
    let profiles = write(
        dir,
        "profiles.json",
        r#"[{"person_id": "p-alice", "person_name": "Alice", "platform": "qq", "user_id": "10001",
             "aliases": ["Ali"], "profile": "Cheerful.", "traits": ["likes tea", "runs marathons"]}]"#,
    );
    std::fs::create_dir(dir.join("img")).unwrap();
    std::fs::write(dir.join("img/photo.png"), PNG).unwrap();
    let messages = write(
        dir,
        "messages.json",
        r#"[
          {"message_id": "m1", "stream_id": "g1", "platform": "qq", "chat_type": "group",
           "target_id": "1001", "stream_name": "Friends", "sender_id": "10001",
           "sender_name": "Alice", "text": "look at this", "time": "2024-06-01 12:00",
           "images": [{"path": "img/photo.png"}]},
          {"message_id": "m2", "stream_id": "g1", "sender_id": "10002", "sender_name": "Bob",
           "text": "[forwarded]", "forward": [{"sender_name": "Carol", "text": "old news"}]}
        ]"#,
    );
    let emoji_dir = dir.join("emoji");
    std::fs::create_dir(&emoji_dir).unwrap();
    std::fs::write(emoji_dir.join("happy_smile.png"), PNG).unwrap();
    std::fs::write(emoji_dir.join("frog.gif"), b"GIF89a-frog").unwrap();
    std::fs::write(
        emoji_dir.join("frog.json"),
        r#"{"description": "a crying frog", "emotions": ["sad"]}"#,
    )
    .unwrap();
    std::fs::write(emoji_dir.join("broken.png"), b"not really a png").unwrap();
    std::fs::write(emoji_dir.join("notes.txt"), b"ignored").unwrap();
    SeedConfig {
        memories: Some(memories),
        profiles: Some(profiles),
        messages: Some(messages),
        emoji_dir: Some(emoji_dir),
    }
}

#[tokio::test]
async fn seeding_imports_every_kind_of_file_and_is_idempotent() {
    let dir = tempfile::tempdir().unwrap();
    let seed = seed_files(dir.path());
    let store = Store::in_memory().await.unwrap();
    let report = seed_store(&store, &seed).await.unwrap();
    assert_eq!(
        (
            report.memories_added,
            report.profiles,
            report.messages_added,
            report.emojis
        ),
        (2, 1, 2, 2)
    );
    assert_eq!(report.warnings.len(), 1);
    assert!(
        report.warnings[0].contains("broken.png"),
        "{:?}",
        report.warnings
    );

    let hits = store
        .search_memories(MemoryQuery {
            query: "Lisbon".into(),
            limit: 5,
            respect_filter: true,
            ..MemoryQuery::default()
        })
        .await
        .unwrap();
    assert_eq!(hits[0].person_id, "p-alice");
    let episodes = store
        .search_memories(MemoryQuery {
            query: "picnic".into(),
            mode: MemoryMode::Episode,
            limit: 5,
            ..MemoryQuery::default()
        })
        .await
        .unwrap();
    assert_eq!(
        (episodes[0].title.as_str(), episodes[0].time),
        ("Picnic", 1_717_200_000.0)
    );
    let alice = store
        .find_person(PersonLookup {
            person_name: Some("ali".into()),
            ..PersonLookup::default()
        })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(alice.traits, vec!["likes tea", "runs marathons"]);
    let m1 = store.message("m1").await.unwrap().unwrap();
    assert_eq!((m1.image_count, m1.time), (1, 1_717_243_200.0));
    assert_eq!(
        store.message_image("m1", 0).await.unwrap().unwrap().data,
        PNG
    );
    assert_eq!(store.stream("g1").await.unwrap().unwrap().name, "Friends");
    assert_eq!(
        store
            .forward_view("g1", "m2", &[])
            .await
            .unwrap()
            .unwrap()
            .nodes[0]
            .text,
        "old news"
    );
    let happy = store
        .pick_emoji(EmojiQuery {
            emotion: Some("smile".into()),
            description: None,
        })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (happy.description.as_str(), happy.emotions.clone()),
        ("happy smile", vec!["happy".to_owned(), "smile".to_owned()])
    );
    let sad = store
        .pick_emoji(EmojiQuery {
            emotion: Some("sad".into()),
            description: None,
        })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(sad.description, "a crying frog");

    let again = seed_store(&store, &seed).await.unwrap();
    assert_eq!((again.memories_added, again.memories_skipped), (0, 2));
    assert_eq!((again.messages_added, again.messages_skipped), (0, 2));
    assert_eq!(store.emoji_count().await.unwrap(), 2);
}

#[tokio::test]
async fn bad_seed_files_fail_with_the_file_and_record() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::in_memory().await.unwrap();
    let broken = write(
        dir.path(),
        "memories.jsonl",
        "{\"content\": \"fine\"}\n{\"content\": \n",
    );
    let error = seed_store(
        &store,
        &SeedConfig {
            memories: Some(broken.clone()),
            ..SeedConfig::default()
        },
    )
    .await
    .unwrap_err();
    assert!(
        matches!(&error, SeedError::Parse { record: 2, .. }),
        "{error}"
    );
    assert!(
        error
            .to_string()
            .starts_with(&format!("{}: record 2:", broken.display()))
    );

    let unknown = write(
        dir.path(),
        "profiles.json",
        r#"[{"person_id": "p", "mood": "odd"}]"#,
    );
    let error = seed_store(
        &store,
        &SeedConfig {
            profiles: Some(unknown),
            ..SeedConfig::default()
        },
    )
    .await
    .unwrap_err();
    assert!(
        error.to_string().contains("unknown field `mood`"),
        "{error}"
    );

    let empty = write(dir.path(), "empty.jsonl", "{\"content\": \"   \"}\n");
    let error = seed_store(
        &store,
        &SeedConfig {
            memories: Some(empty),
            ..SeedConfig::default()
        },
    )
    .await
    .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("record 1: a memory needs non-empty content"),
        "{error}"
    );

    let missing = dir.path().join("nope.json");
    let error = seed_store(
        &store,
        &SeedConfig {
            messages: Some(missing),
            ..SeedConfig::default()
        },
    )
    .await
    .unwrap_err();
    assert!(error.to_string().starts_with("cannot read"), "{error}");
}

#[tokio::test]
async fn the_default_provider_opens_seeds_and_serves_a_file_store() {
    let dir = tempfile::tempdir().unwrap();
    let config = BuiltinConfig {
        database: dir.path().join("data/maitool.sqlite3"),
        seed: seed_files(dir.path()),
        focus_mode: true,
        ..BuiltinConfig::default()
    };
    let provider = default_provider(&config).await.unwrap();
    let ctx = ToolExecutionContext {
        stream_id: "g1".into(),
        ..ctx("g1")
    };
    let reply = provider
        .invoke(
            ToolInvocation::new(
                "reply",
                args(json!({"msg_id": "m1", "text": "Nice photo!"})),
            ),
            &ctx,
        )
        .await
        .unwrap();
    assert!(reply.success, "{}", reply.error_message);
    drop(provider);
    // A second start on the same file sees the reply and seeds nothing twice.
    let provider = default_provider(&config).await.unwrap();
    let history = provider
        .invoke(
            ToolInvocation::new("fetch_history", args(json!({"num": 10}))),
            &ctx,
        )
        .await
        .unwrap();
    assert!(
        history.content.contains("Nice photo!"),
        "{}",
        history.content
    );
    assert_eq!(
        history.structured_content.unwrap()["messages"]
            .as_array()
            .unwrap()
            .len(),
        3
    );

    let bad = BuiltinConfig {
        max_consecutive_wait_count: 0,
        ..BuiltinConfig::default()
    };
    assert!(
        default_provider(&bad)
            .await
            .unwrap_err()
            .to_string()
            .contains("max_consecutive_wait_count")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn processes_seeding_one_file_at_once_all_succeed_and_add_each_record_once() {
    // `maitool serve` and an in-process `maitool call` on a fresh data dir seed together; each
    // open has its own connection, as the second process would. Many records widen the window
    // between a seeder's "is it stored?" and its insert, where another one may get in first.
    let dir = tempfile::tempdir().unwrap();
    let records: Vec<_> = (0..300)
        .map(|n| json!({"message_id": format!("m{n}"), "stream_id": "g1", "text": "hi"}))
        .collect();
    let messages = write(dir.path(), "messages.json", &json!(records).to_string());
    let seed = SeedConfig {
        messages: Some(messages),
        ..SeedConfig::default()
    };
    let path = dir.path().join("shared.sqlite3");
    let seeders: Vec<_> = (0..6)
        .map(|_| {
            let (path, seed) = (path.clone(), seed.clone());
            tokio::spawn(async move {
                let store = Store::open(&path).await.unwrap();
                seed_store(&store, &seed).await
            })
        })
        .collect();
    let mut added = 0;
    for seeder in seeders {
        let report = seeder.await.unwrap().expect("every seeder succeeds");
        assert_eq!(report.messages_added + report.messages_skipped, 300);
        added += report.messages_added;
    }
    assert_eq!(added, 300, "each record is added by exactly one seeder");
}
