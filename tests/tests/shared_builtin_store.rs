//! The built-in store's conformance suite: the same operations through the same public handle
//! (`Store`) on both backends, SQLite (always) and PostgreSQL (when
//! `MAITOOL_TEST_POSTGRES_URL` names a server; `.ci/run` starts one and requires it). Each
//! case checks its expectations on each backend, and `both_backends_give_the_same_results`
//! runs one script on both and compares everything it read, memory searches as sets (their
//! ranking legitimately differs: bm25 on SQLite, ts_rank on PostgreSQL).

use std::collections::BTreeSet;

use maitool_e2e::postgres::{TestDatabase, fresh_database};
use maitool_host::builtin::engine::{
    ChatType, EmojiMatch, EmojiQuery, ForwardNode, ImageData, MemoryMode, MemoryQuery, NewMemory,
    NewMessage, PersonLookup, PersonProfile, StreamInfo, TimeBound, ToolMedia, ToolResultRecord,
};
use maitool_host::builtin::store::{MaibotTable, MessageWindow, NewEmoji, TableQuery};
use maitool_host::builtin::{Store, StoreError};
use maitool_host::postgres::Database;
use maitool_protocol::{BinaryData, ContentType, ToolContentItem};
use serde_json::json;

const PNG: &[u8] = &[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3];
const GIF: &[u8] = b"GIF89a-test-bytes";

enum Backend {
    Sqlite(tempfile::TempDir),
    Postgres(TestDatabase),
}

impl Backend {
    fn sqlite() -> Backend {
        Backend::Sqlite(tempfile::tempdir().unwrap())
    }

    async fn postgres(test: &str) -> Option<Backend> {
        Some(Backend::Postgres(
            fresh_database(&format!("builtin_{test}")).await?,
        ))
    }

    /// The store as a host opens it; on PostgreSQL each call is another host's handle.
    async fn store(&self) -> Store {
        match self {
            Backend::Sqlite(dir) => Store::open(dir.path().join("builtin.sqlite3"))
                .await
                .unwrap(),
            Backend::Postgres(test) => Store::postgres(Database::new(&test.url, 4).unwrap()),
        }
    }

    /// A second, empty store of the same kind (for loading a snapshot into).
    async fn other_store(&self) -> Store {
        match self {
            Backend::Sqlite(dir) => Store::open(dir.path().join("other.sqlite3")).await.unwrap(),
            Backend::Postgres(test) => {
                let admin = test.connect_admin().await;
                let name = format!("{}_other", test.name());
                admin
                    .batch_execute(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"))
                    .await
                    .unwrap();
                admin
                    .batch_execute(&format!("CREATE DATABASE \"{name}\""))
                    .await
                    .unwrap();
                let url = format!("{} dbname={name}", test.url);
                Store::postgres(Database::new(&url, 2).unwrap())
            }
        }
    }

    async fn finish(self) {
        if let Backend::Postgres(test) = self {
            let admin = test.connect_admin().await;
            admin
                .batch_execute(&format!(
                    "DROP DATABASE IF EXISTS \"{}_other\" WITH (FORCE)",
                    test.name()
                ))
                .await
                .unwrap();
            test.drop_database().await;
        }
    }
}

maitool_e2e::conformance!(
    sqlite = sqlite;
    messages_streams_images_forwards_and_unread,
    chinese_and_latin_queries_find_the_memories_sharing_their_words,
    memory_modes_filters_and_refusals,
    persons_are_found_by_id_name_alias_and_account,
    emojis_are_picked_by_tag_then_by_text,
    tool_media_and_calls_are_kept_per_session,
    maibot_tables_read_filter_order_and_count,
    text_times_are_read_as_utc_and_bad_ones_refused,
    a_snapshot_loads_into_an_empty_store_and_twice_changes_nothing,
);

fn message(stream: &str, id: &str, text: &str, time: f64) -> NewMessage {
    NewMessage {
        message_id: id.into(),
        stream_id: stream.into(),
        sender_id: "u1".into(),
        sender_name: "Alice".into(),
        text: text.into(),
        time: Some(time),
        ..NewMessage::default()
    }
}

fn node(text: &str, forward: Vec<ForwardNode>) -> ForwardNode {
    ForwardNode {
        sender_name: "Bob".into(),
        text: text.into(),
        forward,
        ..ForwardNode::default()
    }
}

/// The chat world every case that needs one starts from.
async fn seed_chats(store: &Store) {
    store
        .upsert_stream(StreamInfo {
            stream_id: "g1".into(),
            platform: "qq".into(),
            chat_type: Some(ChatType::Group),
            target_id: "1001".into(),
            name: "火锅群".into(),
        })
        .await
        .unwrap();
    for n in 0..5 {
        store
            .append_message(message(
                "g1",
                &format!("m{n}"),
                &format!("第{n}条"),
                1000.0 + n as f64,
            ))
            .await
            .unwrap();
    }
    store
        .append_message(NewMessage {
            images: vec![ImageData {
                mime_type: "image/png".into(),
                data: PNG.to_vec(),
                description: "一只猫".into(),
            }],
            forward: vec![node("outer", vec![node("inner", Vec::new())])],
            mentions: vec!["u2".into()],
            reply_to: Some("m1".into()),
            ..message("g1", "m5", "", 1005.0)
        })
        .await
        .unwrap();
    store
        .append_message(NewMessage {
            is_bot: true,
            ..message("p1", "b1", "hello", 2000.0)
        })
        .await
        .unwrap();
}

async fn messages_streams_images_forwards_and_unread(backend: &Backend) {
    let store = backend.store().await;
    seed_chats(&store).await;
    // Another host's handle reads what this one wrote.
    let other = backend.store().await;
    let duplicate = other
        .append_message(message("g1", "m0", "again", 1.0))
        .await
        .unwrap_err();
    assert!(
        matches!(duplicate, StoreError::MessageExists(ref id) if id == "m0"),
        "{duplicate:?}"
    );
    let stream = other
        .find_stream("qq", ChatType::Group, "1001")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stream.name, "火锅群");
    // An empty field keeps what was stored.
    other
        .upsert_stream(StreamInfo {
            stream_id: "g1".into(),
            name: String::new(),
            target_id: "1002".into(),
            ..StreamInfo::default()
        })
        .await
        .unwrap();
    let stream = other.stream("g1").await.unwrap().unwrap();
    assert_eq!(
        (stream.name.as_str(), stream.target_id.as_str()),
        ("火锅群", "1002")
    );

    let m5 = other.message("m5").await.unwrap().unwrap();
    assert_eq!((m5.image_count, m5.is_forward), (1, true));
    assert_eq!(m5.mentions, vec!["u2"]);
    assert_eq!(m5.reply_to.as_deref(), Some("m1"));
    let image = other.message_image("m5", 0).await.unwrap().unwrap();
    assert_eq!(
        (image.data.as_slice(), image.description.as_str()),
        (PNG, "一只猫")
    );
    assert!(other.message_image("m5", 1).await.unwrap().is_none());
    let images = other.message_images("m5", false).await.unwrap();
    assert_eq!(images.len(), 1);
    assert!(images[0].data.is_empty());
    assert_eq!(images[0].hash.len(), 64);
    assert_eq!(other.message_images("m5", true).await.unwrap()[0].data, PNG);

    let view = other.forward_view("g1", "m5", &[0]).await.unwrap().unwrap();
    assert_eq!(view.nodes[0].text, "inner");
    assert!(other.forward_view("p1", "m5", &[]).await.unwrap().is_none());
    assert!(matches!(
        other.forward_view("g1", "m5", &[3]).await,
        Err(StoreError::Invalid(_))
    ));

    let recent = other
        .recent_messages("g1", 3, &["m5".into()])
        .await
        .unwrap();
    let ids: Vec<&str> = recent.iter().map(|m| m.message_id.as_str()).collect();
    assert_eq!(ids, ["m4", "m3", "m2"]);

    let (total, unread) = other.take_unread("s1", "g1", 2).await.unwrap();
    let ids: Vec<&str> = unread.iter().map(|m| m.message_id.as_str()).collect();
    assert_eq!((total, ids), (6, vec!["m4", "m5"]));
    let (total, unread) = store.take_unread("s1", "g1", 2).await.unwrap();
    assert_eq!((total, unread.len()), (0, 0), "marked read for every host");

    let window = other
        .messages_in_window(MessageWindow {
            start: 1001.0,
            end: Some(2000.0),
            limit: 2,
            without_bot: true,
            ..MessageWindow::default()
        })
        .await
        .unwrap();
    let ids: Vec<&str> = window.iter().map(|m| m.message_id.as_str()).collect();
    assert_eq!(ids, ["m4", "m5"]);
    assert_eq!(
        other
            .count_messages_since("g1", 1002.0, None)
            .await
            .unwrap(),
        4
    );
    assert_eq!(
        other
            .list_streams(Some("qq".into()), Some(ChatType::Group))
            .await
            .unwrap()
            .len(),
        1
    );
    assert_eq!(other.list_streams(None, None).await.unwrap().len(), 2);
}

fn memory(kind: &str, title: &str, content: &str, time: &str) -> NewMemory {
    NewMemory {
        kind: kind.into(),
        title: title.into(),
        content: content.into(),
        time: Some(TimeBound::Text(time.into())),
        ..NewMemory::default()
    }
}

fn search(query: &str, mode: MemoryMode) -> MemoryQuery {
    MemoryQuery {
        query: query.into(),
        mode,
        limit: 10,
        respect_filter: true,
        ..MemoryQuery::default()
    }
}

async fn seed_memories(store: &Store) {
    for (kind, title, content, time) in [
        ("fact", "", "Alice喜欢吃火锅", "2024-05-01"),
        ("fact", "火锅店", "学校旁边新开了一家店", "2024-05-02 10:00"),
        ("episode", "", "我们一起去吃了烤肉", "2024-05-03T08:00:00Z"),
        (
            "fact",
            "",
            "Bob likes hot-pot and Café-au-lait",
            "2024-06-01",
        ),
        ("preference", "", "她不喜欢香菜", "2024-06-02"),
    ] {
        store
            .add_memory(memory(kind, title, content, time))
            .await
            .unwrap()
            .expect("new memory");
    }
}

async fn contents(store: &Store, query: MemoryQuery) -> BTreeSet<String> {
    store
        .search_memories(query)
        .await
        .unwrap()
        .into_iter()
        .map(|hit| hit.content)
        .collect()
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

async fn chinese_and_latin_queries_find_the_memories_sharing_their_words(backend: &Backend) {
    let store = backend.store().await;
    seed_memories(&store).await;
    // A natural-language question finds the memories sharing its bigrams, title included.
    assert_eq!(
        contents(&store, search("谁喜欢吃火锅？", MemoryMode::Search)).await,
        set(&["Alice喜欢吃火锅", "学校旁边新开了一家店", "她不喜欢香菜"])
    );
    assert_eq!(
        contents(&store, search("烤肉", MemoryMode::Search)).await,
        set(&["我们一起去吃了烤肉"])
    );
    // Latin words match as prefixes, case and diacritics folded.
    assert_eq!(
        contents(&store, search("HOT cafe", MemoryMode::Search)).await,
        set(&["Bob likes hot-pot and Café-au-lait"])
    );
    assert_eq!(
        contents(&store, search("alic", MemoryMode::Search)).await,
        set(&["Alice喜欢吃火锅"])
    );
    // A title outranks content on both backends.
    let hits = store
        .search_memories(search("火锅", MemoryMode::Search))
        .await
        .unwrap();
    assert_eq!(hits.len(), 2);
    assert_eq!(hits[0].title, "火锅店", "{hits:?}");
    assert!(hits[0].score > hits[1].score);
    assert!(
        contents(&store, search("寿司", MemoryMode::Search))
            .await
            .is_empty()
    );
}

async fn memory_modes_filters_and_refusals(backend: &Backend) {
    let store = backend.store().await;
    seed_memories(&store).await;
    let other = backend.store().await;
    assert_eq!(
        other
            .add_memory(memory("fact", "", "Alice喜欢吃火锅", "2024-07-01"))
            .await
            .unwrap(),
        None,
        "the same memory twice is stored once"
    );
    let long = "长".repeat(5000);
    assert!(
        other
            .add_memory(memory("fact", "", &long, "2024-07-01"))
            .await
            .unwrap()
            .is_some(),
        "a long memory is stored"
    );
    let stats = other.memory_stats().await.unwrap();
    assert_eq!(stats.total, 6);
    assert_eq!(stats.by_kind["fact"], 4);

    let in_may = MemoryQuery {
        time_start: Some(TimeBound::Text("2024-05-02".into())),
        time_end: Some(TimeBound::Text("2024-05-03".into())),
        ..search("", MemoryMode::Time)
    };
    let hits = other.search_memories(in_may).await.unwrap();
    let got: Vec<&str> = hits.iter().map(|h| h.content.as_str()).collect();
    assert_eq!(
        got,
        ["我们一起去吃了烤肉", "学校旁边新开了一家店"],
        "newest first, end of day included"
    );
    assert_eq!(
        contents(&other, search("", MemoryMode::Episode)).await,
        set(&["我们一起去吃了烤肉"])
    );
    let aggregate = other
        .search_memories(search("喜欢 火锅", MemoryMode::Aggregate))
        .await
        .unwrap();
    let kinds: Vec<&str> = aggregate.iter().map(|h| h.kind.as_str()).collect();
    assert_eq!(
        kinds,
        ["fact", "preference", "fact"],
        "best of each kind first"
    );
    let refused = other
        .search_memories(search("？！", MemoryMode::Search))
        .await
        .unwrap_err();
    assert!(
        matches!(refused, StoreError::Invalid(ref m) if m.contains("needs keywords")),
        "{refused:?}"
    );
    let refused = other
        .add_memory(memory("fact", "", "  ", "2024-01-01"))
        .await
        .unwrap_err();
    assert!(matches!(refused, StoreError::Invalid(_)), "{refused:?}");
    let scoped = NewMemory {
        chat_id: "g2".into(),
        person_id: "p9".into(),
        ..memory("fact", "", "秘密火锅配方", "2024-01-01")
    };
    other.add_memory(scoped).await.unwrap();
    assert!(
        contents(&other, search("配方", MemoryMode::Search))
            .await
            .is_empty(),
        "a memory of another chat is hidden"
    );
    let allowed = MemoryQuery {
        chat_ids: vec!["g2".into()],
        person_id: Some("p9".into()),
        ..search("配方", MemoryMode::Search)
    };
    assert_eq!(contents(&other, allowed).await, set(&["秘密火锅配方"]));
}

async fn persons_are_found_by_id_name_alias_and_account(backend: &Backend) {
    let store = backend.store().await;
    store
        .upsert_person(PersonProfile {
            person_id: "p1".into(),
            person_name: "Alice".into(),
            nickname: "小爱".into(),
            platform: "qq".into(),
            user_id: "1001".into(),
            aliases: vec!["Ally".into()],
            profile: "likes hot pot".into(),
            traits: vec!["kind".into(), " ".into(), "funny".into()],
        })
        .await
        .unwrap();
    let other = backend.store().await;
    let by = |lookup: PersonLookup| {
        let other = other.clone();
        async move {
            other
                .find_person(lookup)
                .await
                .unwrap()
                .map(|p| p.person_id)
        }
    };
    assert_eq!(
        by(PersonLookup {
            person_name: Some("alice".into()),
            ..PersonLookup::default()
        })
        .await
        .as_deref(),
        Some("p1")
    );
    assert_eq!(
        by(PersonLookup {
            person_name: Some("ALLY".into()),
            ..PersonLookup::default()
        })
        .await
        .as_deref(),
        Some("p1")
    );
    assert_eq!(
        by(PersonLookup {
            person_name: Some("小爱".into()),
            ..PersonLookup::default()
        })
        .await
        .as_deref(),
        Some("p1")
    );
    assert_eq!(
        by(PersonLookup {
            platform: "qq".into(),
            user_id: "1001".into(),
            ..PersonLookup::default()
        })
        .await
        .as_deref(),
        Some("p1")
    );
    assert_eq!(
        by(PersonLookup {
            person_name: Some("nobody".into()),
            ..PersonLookup::default()
        })
        .await,
        None
    );
    let found = other
        .find_person(PersonLookup {
            person_id: Some("p1".into()),
            trait_limit: 1,
            ..PersonLookup::default()
        })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(found.traits, vec!["kind"]);
    assert_eq!(found.aliases, vec!["Ally"]);
    let all = other
        .find_person(PersonLookup {
            person_id: Some("p1".into()),
            ..PersonLookup::default()
        })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(all.traits, vec!["kind", "funny"]);
    assert!(matches!(
        other.upsert_person(PersonProfile::default()).await,
        Err(StoreError::Invalid(_))
    ));
}

async fn emojis_are_picked_by_tag_then_by_text(backend: &Backend) {
    let store = backend.store().await;
    let happy = store
        .add_emoji(NewEmoji {
            source: "happy".into(),
            data: Some(PNG.to_vec()),
            description: "一只开心的猫".into(),
            emotions: vec!["Happy".into(), " ".into()],
            ..NewEmoji::default()
        })
        .await
        .unwrap();
    let sad = store
        .add_emoji(NewEmoji {
            source: "sad".into(),
            data: Some(GIF.to_vec()),
            description: "a crying dog".into(),
            emotions: vec!["sad".into()],
            ..NewEmoji::default()
        })
        .await
        .unwrap();
    let other = backend.store().await;
    let by_tag = other
        .pick_emoji(EmojiQuery {
            emotion: Some("HAPPY".into()),
            ..EmojiQuery::default()
        })
        .await
        .unwrap()
        .unwrap();
    assert_eq!((by_tag.id, by_tag.mime_type.as_str()), (happy, "image/png"));
    assert_eq!(by_tag.matched, EmojiMatch::Emotion("HAPPY".into()));
    let by_text = other
        .pick_emoji(EmojiQuery {
            emotion: Some("难过".into()),
            description: Some("开心".into()),
        })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(by_text.id, happy, "开心 matches the description");
    let by_word = other
        .pick_emoji(EmojiQuery {
            description: Some("Crying".into()),
            ..EmojiQuery::default()
        })
        .await
        .unwrap()
        .unwrap();
    assert_eq!((by_word.id, by_word.data.as_slice()), (sad, GIF));
    // Re-adding a source replaces it (same id, new tags).
    let again = other
        .add_emoji(NewEmoji {
            source: "sad".into(),
            data: Some(GIF.to_vec()),
            description: "a crying dog".into(),
            emotions: vec!["blue".into()],
            ..NewEmoji::default()
        })
        .await
        .unwrap();
    assert_eq!(again, sad);
    assert_eq!(other.emoji_count().await.unwrap(), 2);
    let all = other.all_emojis().await.unwrap();
    assert_eq!(all.iter().map(|e| e.id).collect::<Vec<_>>(), [happy, sad]);
    assert_eq!(all[1].emotions, vec!["blue"]);
    assert!(other.delete_emoji(happy).await.unwrap());
    assert!(!other.delete_emoji(happy).await.unwrap());
    let refused = other
        .add_emoji(NewEmoji {
            source: "x".into(),
            data: Some(b"not an image".to_vec()),
            ..NewEmoji::default()
        })
        .await
        .unwrap_err();
    assert!(
        matches!(refused, StoreError::Invalid(ref m) if m.contains("unknown image format")),
        "{refused:?}"
    );
    // An empty library picks nothing once the last is gone.
    other.delete_emoji(sad).await.unwrap();
    assert!(
        other
            .pick_emoji(EmojiQuery::default())
            .await
            .unwrap()
            .is_none()
    );
}

async fn tool_media_and_calls_are_kept_per_session(backend: &Backend) {
    let store = backend.store().await;
    let image = ToolContentItem {
        content_type: ContentType::Image,
        mime_type: "image/png".into(),
        data: BinaryData(PNG.to_vec()),
        ..ToolContentItem::default()
    };
    store
        .put_tool_media(
            "s1",
            vec![ToolMedia {
                media_id: "tool_result:c1:0".into(),
                item: image.clone(),
            }],
        )
        .await
        .unwrap();
    for (n, success) in [(1, true), (2, false)] {
        store
            .record_tool_call(ToolResultRecord {
                session_id: "s1".into(),
                stream_id: "g1".into(),
                call_id: format!("c{n}"),
                tool_name: "query_memory".into(),
                arguments: json!({"query": "火锅", "n": n})
                    .as_object()
                    .unwrap()
                    .clone(),
                success,
                content: format!("result {n}"),
                error_message: if success {
                    String::new()
                } else {
                    "boom".into()
                },
            })
            .await
            .unwrap();
    }
    let other = backend.store().await;
    let kept = other
        .tool_media("s1", "tool_result:c1:0")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (kept.content_type, kept.data.0.as_slice()),
        (ContentType::Image, PNG)
    );
    assert!(
        other
            .tool_media("s2", "tool_result:c1:0")
            .await
            .unwrap()
            .is_none()
    );
    let calls = other.tool_calls("s1").await.unwrap();
    assert_eq!(
        calls
            .iter()
            .map(|c| (c.call_id.as_str(), c.success))
            .collect::<Vec<_>>(),
        [("c1", true), ("c2", false)]
    );
    assert_eq!(calls[1].arguments["query"], "火锅");
    assert!(other.tool_calls("s2").await.unwrap().is_empty());
}

async fn maibot_tables_read_filter_order_and_count(backend: &Backend) {
    let store = backend.store().await;
    seed_chats(&store).await;
    store
        .upsert_person(PersonProfile {
            person_id: "p1".into(),
            person_name: "Alice".into(),
            traits: vec!["喜欢\"火锅\"".into(), "kind".into()],
            ..PersonProfile::default()
        })
        .await
        .unwrap();
    let other = backend.store().await;
    let rows = other
        .maibot_rows(
            MaibotTable::Messages,
            TableQuery {
                filters: vec![
                    ("session_id".into(), json!("g1")),
                    ("is_picture".into(), json!(true)),
                ],
                ..TableQuery::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["message_id"], "m5");
    assert_eq!(rows[0]["is_at"], true);
    assert_eq!(rows[0]["timestamp"], "1970-01-01T00:16:45.000");
    assert_eq!(rows[0]["group_id"], "1001");
    assert_eq!(rows[0]["raw_content"], serde_json::Value::Null);
    let by_time = other
        .maibot_count(
            MaibotTable::Messages,
            vec![("timestamp".into(), json!("1970-01-01T00:16:40"))],
        )
        .await
        .unwrap();
    assert_eq!(by_time, 1, "ISO text compares as a time");
    let ordered = other
        .maibot_rows(
            MaibotTable::Messages,
            TableQuery {
                order_by: vec!["-id".into()],
                limit: Some(2),
                ..TableQuery::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(
        ordered
            .iter()
            .map(|r| r["message_id"].clone())
            .collect::<Vec<_>>(),
        [json!("b1"), json!("m5")]
    );
    let person = other
        .maibot_rows(MaibotTable::PersonInfo, TableQuery::default())
        .await
        .unwrap();
    assert_eq!(
        person[0]["memory_points"],
        r#"["trait:喜欢\"火锅\":1.0","trait:kind:1.0"]"#
    );
    assert_eq!(person[0]["is_known"], true);
    assert_eq!(person[0]["id"], 1);
    let images = other
        .maibot_rows(MaibotTable::Images, TableQuery::default())
        .await
        .unwrap();
    assert_eq!(images.len(), 1);
    assert_eq!(images[0]["id"], 3);
    assert_eq!(images[0]["vlm_processed"], true);
    assert_eq!(
        other
            .maibot_count(
                MaibotTable::ChatSession,
                vec![("platform".into(), json!("qq"))]
            )
            .await
            .unwrap(),
        1
    );
    let refused = other
        .maibot_count(MaibotTable::Messages, vec![("nope".into(), json!(1))])
        .await
        .unwrap_err();
    assert!(
        matches!(refused, StoreError::Invalid(ref m) if m.contains("no field \"nope\"")),
        "{refused:?}"
    );
    let refused = other
        .maibot_count(MaibotTable::Messages, vec![("id".into(), json!([1]))])
        .await
        .unwrap_err();
    assert!(matches!(refused, StoreError::Invalid(_)), "{refused:?}");
}

async fn text_times_are_read_as_utc_and_bad_ones_refused(backend: &Backend) {
    let store = backend.store().await;
    for (text, seconds) in [
        ("2024-05-01", 1_714_521_600.0),
        ("2024-05-01 12:30", 1_714_566_600.0),
        ("2024-05-01T12:30:15Z", 1_714_566_615.0),
        ("2024-05-01T14:30:15+02:00", 1_714_566_615.0),
        ("1714521600.5", 1_714_521_600.5),
    ] {
        assert_eq!(
            store
                .parse_time(&TimeBound::Text(text.into()))
                .await
                .unwrap(),
            seconds,
            "{text}"
        );
    }
    let refused = store
        .parse_time(&TimeBound::Text("next tuesday-ish".into()))
        .await
        .unwrap_err();
    assert!(
        matches!(refused, StoreError::Invalid(ref m) if m.contains("invalid time")),
        "{refused:?}"
    );
}

async fn a_snapshot_loads_into_an_empty_store_and_twice_changes_nothing(backend: &Backend) {
    let store = backend.store().await;
    seed_chats(&store).await;
    seed_memories(&store).await;
    store.take_unread("s1", "g1", 1).await.unwrap();
    let snapshot = store.backend().dump().await.unwrap();
    assert_eq!(snapshot.messages.len(), 7);
    let copy = backend.other_store().await;
    copy.backend().load(snapshot.clone()).await.unwrap();
    copy.backend().load(snapshot.clone()).await.unwrap();
    assert_eq!(copy.backend().dump().await.unwrap(), snapshot);
    // The copy searches and numbers new rows after the copied ones.
    assert_eq!(
        contents(&copy, search("烤肉", MemoryMode::Search)).await,
        set(&["我们一起去吃了烤肉"])
    );
    let id = copy
        .add_memory(memory("fact", "", "new after the copy", "2024-08-01"))
        .await
        .unwrap()
        .unwrap();
    assert!(id > snapshot.memories.iter().map(|m| m.id).max().unwrap());
    copy.append_message(message("g1", "m9", "after", 3000.0))
        .await
        .unwrap();
}

/// What one script reads from a store, for comparing backends; memory searches as sets.
async fn transcript(store: &Store) -> Vec<String> {
    seed_chats(store).await;
    seed_memories(store).await;
    let mut out = Vec::new();
    out.push(format!("{:?}", store.message("m5").await.unwrap()));
    out.push(format!(
        "{:?}",
        store.recent_messages("g1", 10, &[]).await.unwrap()
    ));
    out.push(format!(
        "{:?}",
        store.take_unread("s", "g1", 3).await.unwrap()
    ));
    out.push(format!(
        "{:?}",
        store.forward_view("g1", "m5", &[]).await.unwrap()
    ));
    out.push(format!(
        "{:?}",
        store.list_streams(None, None).await.unwrap()
    ));
    for query in ["火锅", "喜欢吃", "hot", "香菜 烤肉", "学校"] {
        for mode in [MemoryMode::Search, MemoryMode::Aggregate, MemoryMode::Time] {
            out.push(format!(
                "{query} {mode}: {:?}",
                contents(store, search(query, mode)).await
            ));
        }
    }
    out.push(format!("{:?}", store.memory_stats().await.unwrap()));
    for table in MaibotTable::ALL {
        let mut rows = store
            .maibot_rows(table, TableQuery::default())
            .await
            .unwrap();
        // When a stream was first seen is the clock's, not the script's.
        rows.iter_mut().for_each(|row| {
            row.remove("created_timestamp");
        });
        out.push(format!("{}: {rows:?}", table.model_name()));
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_backends_give_the_same_results() {
    let Some(postgres) = Backend::postgres("same_results").await else {
        return;
    };
    let sqlite = Backend::sqlite();
    let on_sqlite = transcript(&sqlite.store().await).await;
    let on_postgres = transcript(&postgres.store().await).await;
    for (line, (a, b)) in on_sqlite.iter().zip(&on_postgres).enumerate() {
        assert_eq!(a, b, "line {line} differs");
    }
    assert_eq!(on_sqlite.len(), on_postgres.len());
    postgres.finish().await;
}

// `maitool store copy`: a single-host instance's built-in store moved into PostgreSQL and read
// back through the PostgreSQL backend, nothing lost; again, nothing changes; a row the
// database holds differently is reported, not overwritten.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn store_copy_moves_the_builtin_store_and_reports_conflicts() {
    let Some(test) = fresh_database("builtin_store_copy").await else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("builtin.sqlite3");
    let source = Store::open(&file).await.unwrap();
    seed_chats(&source).await;
    seed_memories(&source).await;
    source
        .upsert_person(PersonProfile {
            person_id: "p1".into(),
            person_name: "Alice".into(),
            aliases: vec!["小爱".into()],
            traits: vec!["喜欢火锅".into()],
            ..PersonProfile::default()
        })
        .await
        .unwrap();
    source
        .add_emoji(NewEmoji {
            source: "happy".into(),
            data: Some(PNG.to_vec()),
            description: "开心的猫".into(),
            emotions: vec!["happy".into()],
            ..NewEmoji::default()
        })
        .await
        .unwrap();
    source
        .record_tool_call(ToolResultRecord {
            session_id: "s1".into(),
            call_id: "c1".into(),
            tool_name: "reply".into(),
            success: true,
            ..ToolResultRecord::default()
        })
        .await
        .unwrap();
    source.take_unread("s1", "g1", 2).await.unwrap();
    let before = source.backend().dump().await.unwrap();
    drop(source);
    let config = dir.path().join("maitool.toml");
    std::fs::write(
        &config,
        format!(
            "[builtin]\ndatabase = {:?}\n[mcp]\nenable = false\n[store]\nbackend = \"postgres\"\nurl = {:?}\n",
            file.display().to_string(),
            test.url
        ),
    )
    .unwrap();
    let maitool = maitool_e2e::workspace_bin("maitool");
    let run = || {
        std::process::Command::new(&maitool)
            .arg("--config")
            .arg(&config)
            .args(["store", "copy"])
            .output()
            .unwrap()
    };
    let copied = run();
    let stdout = String::from_utf8_lossy(&copied.stdout).into_owned();
    assert!(
        copied.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&copied.stderr)
    );
    assert!(
        stdout.contains(&format!(
            "copied {} built-in store rows (7 messages, 5 memories, 1 persons, 1 emojis) from",
            before.row_count()
        )),
        "{stdout}"
    );
    let target = Store::postgres(Database::new(&test.url, 2).unwrap());
    assert_eq!(
        target.backend().dump().await.unwrap(),
        before,
        "every row, ids kept"
    );
    // Read back through the backend's own operations: search, persons, emojis, unread marks.
    assert_eq!(
        contents(&target, search("谁喜欢吃火锅", MemoryMode::Search)).await,
        set(&["Alice喜欢吃火锅", "学校旁边新开了一家店", "她不喜欢香菜"])
    );
    let alice = target
        .find_person(PersonLookup {
            person_name: Some("小爱".into()),
            ..PersonLookup::default()
        })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(alice.traits, vec!["喜欢火锅"]);
    let emoji = target
        .pick_emoji(EmojiQuery {
            emotion: Some("HAPPY".into()),
            ..EmojiQuery::default()
        })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(emoji.data, PNG);
    assert_eq!(
        target.message_image("m5", 0).await.unwrap().unwrap().data,
        PNG
    );
    let (unread, _) = target.take_unread("s1", "g1", 10).await.unwrap();
    assert_eq!(unread, 0, "the session's read marks came along");
    assert_eq!(target.tool_calls("s1").await.unwrap().len(), 1);
    let next = target
        .append_message(message("g1", "after-copy", "new", 5000.0))
        .await
        .unwrap();
    assert_eq!(next.message_id, "after-copy");

    // Again: nothing changes, and it says so the same way.
    let again = run();
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );

    // A row the database holds differently is kept and named; exit 1.
    test.connect()
        .await
        .batch_execute(
            "UPDATE messages SET text = 'edited on another host' WHERE message_id = 'm0'",
        )
        .await
        .unwrap();
    let conflict = run();
    assert_eq!(conflict.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&conflict.stderr);
    assert!(stderr.contains("1 of"), "{stderr}");
    assert!(stderr.contains("messages m0"), "{stderr}");
    assert_eq!(
        target.message("m0").await.unwrap().unwrap().text,
        "edited on another host"
    );
    drop(target);
    test.drop_database().await;
}
