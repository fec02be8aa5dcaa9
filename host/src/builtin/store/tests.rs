use maitool_protocol::ToolContentItem;

use super::*;
use crate::builtin::engine::{
    ChatType, EmojiMatch, EmojiQuery, ForwardNode, ImageData, MemoryMode, MemoryQuery, NewMemory,
    NewMessage, PersonLookup, PersonProfile, StreamInfo, TimeBound, ToolMedia,
};

const PNG: &[u8] = &[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3];
const GIF: &[u8] = b"GIF89a-test-bytes";

fn memory(kind: &str, content: &str, time: &str) -> NewMemory {
    NewMemory {
        kind: kind.into(),
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

fn message(stream: &str, id: &str, text: &str) -> NewMessage {
    NewMessage {
        message_id: id.into(),
        stream_id: stream.into(),
        sender_id: "u1".into(),
        sender_name: "Alice".into(),
        text: text.into(),
        ..NewMessage::default()
    }
}

#[tokio::test]
async fn a_file_store_creates_its_directory_and_keeps_data_across_reopens() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/dir/maitool.sqlite3");
    let store = Store::open(&path).await.unwrap();
    store
        .append_message(message("s1", "m1", "hello"))
        .await
        .unwrap();
    drop(store);
    let reopened = Store::open(&path).await.unwrap();
    let found = reopened.message("m1").await.unwrap().unwrap();
    assert_eq!(found.text, "hello");
    assert_eq!(reopened.location(), path.display().to_string());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn many_opens_of_a_new_file_at_once_all_succeed() {
    // Two `maitool` processes on one config create the store together; each open has its own
    // connection, as a second process would.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shared.sqlite3");
    let opens: Vec<_> = (0..8)
        .map(|n| {
            let path = path.clone();
            tokio::spawn(async move {
                let store = Store::open(&path).await?;
                store
                    .append_message(message("s1", &format!("m{n}"), "hi"))
                    .await?;
                Ok::<_, StoreError>(())
            })
        })
        .collect();
    for open in opens {
        open.await.unwrap().unwrap();
    }
    let store = Store::open(&path).await.unwrap();
    for n in 0..8 {
        assert!(store.message(&format!("m{n}")).await.unwrap().is_some());
    }
}

#[tokio::test]
async fn a_store_from_a_newer_maitool_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("future.sqlite3");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.pragma_update(None, "user_version", 99).unwrap();
    drop(conn);
    let error = Store::open(&path).await.unwrap_err();
    assert!(
        error.to_string().contains("schema version 99 is newer"),
        "{error}"
    );
}

#[tokio::test]
async fn memory_search_uses_fts_with_bm25_ranking() {
    let store = Store::in_memory().await.unwrap();
    let rust = store
        .add_memory(memory(
            "fact",
            "Alice loves Rust and writes Rust every day",
            "2024-01-01",
        ))
        .await
        .unwrap()
        .unwrap();
    store
        .add_memory(memory(
            "fact",
            "Bob once mentioned Rust in passing while talking about cooking",
            "2024-01-02",
        ))
        .await
        .unwrap();
    store
        .add_memory(memory("fact", "Carol plays the violin", "2024-01-03"))
        .await
        .unwrap();
    let hits = store
        .search_memories(search("rust", MemoryMode::Search))
        .await
        .unwrap();
    assert_eq!(hits.len(), 2, "{hits:?}");
    assert_eq!(
        hits[0].id, rust,
        "the memory that mentions rust twice in fewer words ranks first"
    );
    assert!(hits[0].score > hits[1].score);
    // Prefix matching of words.
    let hits = store
        .search_memories(search("viol", MemoryMode::Search))
        .await
        .unwrap();
    assert_eq!(hits.len(), 1);
    assert!(hits[0].content.contains("violin"));
    // Nothing searchable is a clear error, not an empty success.
    let error = store
        .search_memories(search("?!", MemoryMode::Search))
        .await
        .unwrap_err();
    assert!(error.to_string().contains("no searchable words"), "{error}");
}

#[tokio::test]
async fn memory_search_finds_chinese_text_by_bigrams() {
    let store = Store::in_memory().await.unwrap();
    store
        .add_memory(memory(
            "episode",
            "我们昨天一起去吃了火锅，麦麦很开心",
            "2024-03-01",
        ))
        .await
        .unwrap();
    store
        .add_memory(memory("fact", "小明喜欢打篮球", "2024-03-02"))
        .await
        .unwrap();
    let hits = store
        .search_memories(search("火锅", MemoryMode::Search))
        .await
        .unwrap();
    assert_eq!(hits.len(), 1);
    assert!(hits[0].content.contains("火锅"));
    // A natural-language question shares bigrams with the memory.
    let hits = store
        .search_memories(search("小明喜欢什么运动", MemoryMode::Search))
        .await
        .unwrap();
    assert_eq!(
        hits.first().map(|hit| hit.content.as_str()),
        Some("小明喜欢打篮球")
    );
}

#[tokio::test]
async fn memory_modes_filter_by_time_kind_person_and_chat() {
    let store = Store::in_memory().await.unwrap();
    let add = |memory: NewMemory| {
        let store = store.clone();
        async move { store.add_memory(memory).await.unwrap().unwrap() }
    };
    let old_trip = add(memory(
        "episode",
        "Trip to the sea with Alice",
        "2023-06-01 10:00",
    ))
    .await;
    let new_trip = add(memory(
        "episode",
        "Trip to the mountains with Alice",
        "2024-06-01 10:00",
    ))
    .await;
    let fact = add(memory("fact", "Alice likes trips by train", "2024-06-02")).await;
    let summary = add(memory(
        "summary",
        "Alice plans trips every summer",
        "2024-06-03",
    ))
    .await;
    let bob = add(NewMemory {
        person_id: "p-bob".into(),
        ..memory("fact", "Bob dislikes trips", "2024-06-04")
    })
    .await;
    let private = add(NewMemory {
        chat_id: "other-chat".into(),
        ..memory(
            "fact",
            "A secret trip planned in another chat",
            "2024-06-05",
        )
    })
    .await;
    let ids = |hits: Vec<crate::builtin::engine::MemoryHit>| {
        hits.into_iter().map(|hit| hit.id).collect::<Vec<_>>()
    };

    // time: the range only, newest first.
    let mut query = search("", MemoryMode::Time);
    query.time_start = Some(TimeBound::Text("2024-06-01".into()));
    query.time_end = Some(TimeBound::Text("2024-06-03".into()));
    assert_eq!(
        ids(store.search_memories(query).await.unwrap()),
        vec![summary, fact, new_trip]
    );

    // hybrid: keywords inside the range; a bare end date includes that whole day.
    let mut query = search("mountains", MemoryMode::Hybrid);
    query.time_start = Some(TimeBound::Unix(0.0));
    query.time_end = Some(TimeBound::Text("2024-06-01".into()));
    assert_eq!(
        ids(store.search_memories(query).await.unwrap()),
        vec![new_trip]
    );

    // episode: episodes only.
    let mut episodes = ids(store
        .search_memories(search("trip", MemoryMode::Episode))
        .await
        .unwrap());
    episodes.sort();
    assert_eq!(episodes, vec![old_trip, new_trip]);

    // aggregate: every kind is represented before any kind gets a second hit.
    let mut query = search("trips trip", MemoryMode::Aggregate);
    query.limit = 3;
    let kinds: Vec<String> = store
        .search_memories(query)
        .await
        .unwrap()
        .into_iter()
        .map(|hit| hit.kind)
        .collect();
    assert_eq!(kinds, vec!["episode", "fact", "summary"]);

    // person filter.
    let mut query = search("trips", MemoryMode::Search);
    query.person_id = Some("p-bob".into());
    assert_eq!(ids(store.search_memories(query).await.unwrap()), vec![bob]);

    // chat filter: a memory of another chat is hidden unless the filter is off or the chat is ours.
    let found = ids(store
        .search_memories(search("secret", MemoryMode::Search))
        .await
        .unwrap());
    assert!(found.is_empty());
    let mut query = search("secret", MemoryMode::Search);
    query.chat_ids = vec!["other-chat".into()];
    assert_eq!(
        ids(store.search_memories(query).await.unwrap()),
        vec![private]
    );
    let mut query = search("secret", MemoryMode::Search);
    query.respect_filter = false;
    assert_eq!(
        ids(store.search_memories(query).await.unwrap()),
        vec![private]
    );

    // a bad time is a clear error.
    let mut query = search("", MemoryMode::Time);
    query.time_start = Some(TimeBound::Text("last tuesday".into()));
    let error = store.search_memories(query).await.unwrap_err();
    assert!(
        error
            .to_string()
            .contains("invalid time_start `last tuesday`"),
        "{error}"
    );
}

#[tokio::test]
async fn identical_memories_are_stored_once() {
    let store = Store::in_memory().await.unwrap();
    let first = store
        .add_memory(memory("fact", "same", "2024-01-01"))
        .await
        .unwrap();
    let second = store
        .add_memory(memory("fact", "same", "2024-01-01"))
        .await
        .unwrap();
    assert!(first.is_some());
    assert_eq!(second, None);
    let stats = store.memory_stats().await.unwrap();
    assert_eq!(stats.total, 1);
    let error = store
        .add_memory(memory("fact", "  ", "2024-01-01"))
        .await
        .unwrap_err();
    assert!(error.to_string().contains("non-empty content"));
}

#[tokio::test]
async fn recent_messages_are_newest_first_per_stream_and_skip_excluded_ids() {
    let store = Store::in_memory().await.unwrap();
    for n in 1..=5 {
        store
            .append_message(message("s1", &format!("m{n}"), &format!("text {n}")))
            .await
            .unwrap();
    }
    store
        .append_message(message("s2", "other", "elsewhere"))
        .await
        .unwrap();
    let ids: Vec<String> = store
        .recent_messages("s1", 3, &["m5".into(), "m3".into()])
        .await
        .unwrap()
        .into_iter()
        .map(|message| message.message_id)
        .collect();
    assert_eq!(ids, vec!["m4", "m2", "m1"]);
    let error = store
        .append_message(message("s1", "m1", "again"))
        .await
        .unwrap_err();
    assert!(error.to_string().contains("m1 already exists"), "{error}");
}

#[tokio::test]
async fn unread_messages_are_taken_once_and_capped() {
    let store = Store::in_memory().await.unwrap();
    for n in 1..=25 {
        store
            .append_message(message("s1", &format!("m{n}"), "x"))
            .await
            .unwrap();
    }
    let (total, messages) = store.take_unread("session", "s1", 20).await.unwrap();
    assert_eq!(total, 25);
    assert_eq!(messages.len(), 20);
    assert_eq!(
        messages.first().unwrap().message_id,
        "m6",
        "the newest 20, oldest first"
    );
    assert_eq!(messages.last().unwrap().message_id, "m25");
    store
        .append_message(message("s1", "m26", "x"))
        .await
        .unwrap();
    let (total, messages) = store.take_unread("session", "s1", 20).await.unwrap();
    assert_eq!((total, messages.len()), (1, 1));
}

#[tokio::test]
async fn streams_are_found_by_address_and_keep_known_fields() {
    let store = Store::in_memory().await.unwrap();
    store
        .upsert_stream(StreamInfo {
            stream_id: "g1".into(),
            platform: "qq".into(),
            chat_type: Some(ChatType::Group),
            target_id: "1001".into(),
            name: "Friends".into(),
        })
        .await
        .unwrap();
    store
        .append_message(message("g1", "m1", "hi"))
        .await
        .unwrap();
    store
        .upsert_stream(StreamInfo {
            stream_id: "g1".into(),
            ..StreamInfo::default()
        })
        .await
        .unwrap();
    let found = store
        .find_stream("qq", ChatType::Group, "1001")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (found.stream_id.as_str(), found.name.as_str()),
        ("g1", "Friends")
    );
    assert!(
        store
            .find_stream("qq", ChatType::Private, "1001")
            .await
            .unwrap()
            .is_none()
    );
}

#[tokio::test]
async fn people_are_found_by_id_name_alias_or_account() {
    let store = Store::in_memory().await.unwrap();
    store
        .upsert_person(PersonProfile {
            person_id: "p1".into(),
            person_name: "Alice".into(),
            nickname: "Ali".into(),
            platform: "qq".into(),
            user_id: "10001".into(),
            aliases: vec!["Wonderland".into()],
            profile: "Likes tea.".into(),
            traits: (1..=25).map(|n| format!("trait {n}")).collect(),
        })
        .await
        .unwrap();
    let lookup = |lookup: PersonLookup| {
        let store = store.clone();
        async move { store.find_person(lookup).await.unwrap() }
    };
    let by_id = lookup(PersonLookup {
        person_id: Some("p1".into()),
        trait_limit: 3,
        ..Default::default()
    })
    .await
    .unwrap();
    assert_eq!(by_id.traits, vec!["trait 1", "trait 2", "trait 3"]);
    for name in ["alice", "ALI", "wonderland"] {
        let found = lookup(PersonLookup {
            person_name: Some(name.into()),
            ..Default::default()
        })
        .await;
        assert_eq!(found.map(|p| p.person_id), Some("p1".into()), "{name}");
    }
    let by_account = lookup(PersonLookup {
        platform: "qq".into(),
        user_id: "10001".into(),
        ..Default::default()
    })
    .await;
    assert_eq!(
        by_account.unwrap().traits.len(),
        25,
        "trait_limit 0 means all"
    );
    assert!(
        lookup(PersonLookup {
            person_name: Some("Nobody".into()),
            ..Default::default()
        })
        .await
        .is_none()
    );
}

#[tokio::test]
async fn emojis_are_picked_by_tag_then_text_then_at_random() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("angry.gif");
    std::fs::write(&file, GIF).unwrap();
    let store = Store::in_memory().await.unwrap();
    assert!(
        store
            .pick_emoji(EmojiQuery::default())
            .await
            .unwrap()
            .is_none()
    );
    store
        .add_emoji(NewEmoji {
            source: "happy".into(),
            data: Some(PNG.to_vec()),
            description: "a cat smiling in the sun".into(),
            emotions: vec!["Happy".into(), "joy".into()],
            ..NewEmoji::default()
        })
        .await
        .unwrap();
    store
        .add_emoji(NewEmoji {
            source: file.display().to_string(),
            path: Some(file.clone()),
            description: "a dog barking loudly".into(),
            emotions: vec!["angry".into()],
            ..NewEmoji::default()
        })
        .await
        .unwrap();
    let by_tag = store
        .pick_emoji(EmojiQuery {
            emotion: Some("happy".into()),
            description: None,
        })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(by_tag.data, PNG);
    assert_eq!(by_tag.mime_type, "image/png");
    assert_eq!(by_tag.matched, EmojiMatch::Emotion("happy".into()));
    let by_text = store
        .pick_emoji(EmojiQuery {
            emotion: None,
            description: Some("barking dog".into()),
        })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(by_text.data, GIF, "file-backed emojis are read from disk");
    assert_eq!(by_text.mime_type, "image/gif");
    assert!(matches!(by_text.matched, EmojiMatch::Text(_)));
    let random = store
        .pick_emoji(EmojiQuery {
            emotion: Some("melancholy".into()),
            description: None,
        })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(random.matched, EmojiMatch::Random);
    assert_eq!(store.emoji_count().await.unwrap(), 2);
    let error = store
        .add_emoji(NewEmoji {
            source: "junk".into(),
            data: Some(b"not an image".to_vec()),
            ..NewEmoji::default()
        })
        .await
        .unwrap_err();
    assert!(
        error.to_string().contains("unknown image format"),
        "{error}"
    );
}

#[tokio::test]
async fn forwarded_bundles_are_walked_level_by_level() {
    let store = Store::in_memory().await.unwrap();
    let inner = ForwardNode {
        sender_name: "Carol".into(),
        text: "deep".into(),
        ..ForwardNode::default()
    };
    let nested = ForwardNode {
        sender_name: "Bob".into(),
        forward: vec![inner],
        ..ForwardNode::default()
    };
    let plain = ForwardNode {
        sender_name: "Alice".into(),
        text: "top".into(),
        ..ForwardNode::default()
    };
    store
        .append_message(NewMessage {
            forward: vec![plain, nested],
            ..message("s1", "fw", "[forward]")
        })
        .await
        .unwrap();
    let top = store.forward_view("s1", "fw", &[]).await.unwrap().unwrap();
    assert_eq!(top.nodes.len(), 2);
    let deep = store.forward_view("s1", "fw", &[1]).await.unwrap().unwrap();
    assert_eq!(deep.nodes[0].text, "deep");
    let error = store.forward_view("s1", "fw", &[0]).await.unwrap_err();
    assert!(
        error.to_string().contains("is not a forwarded bundle"),
        "{error}"
    );
    let error = store.forward_view("s1", "fw", &[7]).await.unwrap_err();
    assert!(error.to_string().contains("no index 7"), "{error}");
    assert!(
        store
            .forward_view("other-stream", "fw", &[])
            .await
            .unwrap()
            .is_none()
    );
    assert!(store.message("fw").await.unwrap().unwrap().is_forward);
}

#[tokio::test]
async fn message_images_and_tool_media_round_trip() {
    let store = Store::in_memory().await.unwrap();
    let image = ImageData {
        mime_type: "image/png".into(),
        data: PNG.to_vec(),
        description: "chart".into(),
    };
    store
        .append_message(NewMessage {
            images: vec![image.clone()],
            ..message("s1", "m1", "look")
        })
        .await
        .unwrap();
    assert_eq!(store.message_image("m1", 0).await.unwrap(), Some(image));
    assert_eq!(store.message_image("m1", 1).await.unwrap(), None);
    let media = ToolMedia {
        media_id: "tool_result:c1:1".into(),
        item: ToolContentItem::image(PNG.to_vec(), "image/png").with_name("plot"),
    };
    store
        .put_tool_media("session", vec![media.clone()])
        .await
        .unwrap();
    let item = store
        .tool_media("session", "tool_result:c1:1")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (
            item.content_type,
            item.data.0.as_slice(),
            item.name.as_str()
        ),
        (media.item.content_type, PNG, "plot")
    );
    assert!(
        store
            .tool_media("other", "tool_result:c1:1")
            .await
            .unwrap()
            .is_none()
    );
}
