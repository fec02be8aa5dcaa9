//! `message.*`, `person.*`, `emoji.*`, `chat.*`, `knowledge.search` and `config.*` over a
//! seeded store, read through the result keys `maibot_sdk` unwraps.

use base64::Engine as _;
use serde_json::json;

use super::{PLUGIN, assert_bad_payload, call, refused, seed_chats, service};
use crate::builtin::engine::{NewMemory, PersonProfile};
use crate::builtin::store::NewEmoji;
use crate::plugin::BotConfig;

fn ids(result: &serde_json::Value) -> Vec<&str> {
    result["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["message_id"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn message_queries_select_by_window_limit_and_sender() {
    let (service, store) = service(&["message.*"]).await;
    seed_chats(&store).await;
    let window = json!({"chat_id": "g1", "start_time": "1500", "end_time": "3000"});
    let found = call(&service, "message.get_by_time_in_chat", window).await;
    assert_eq!(ids(&found), ["m2", "m3"]);
    let first = &found["messages"][0];
    assert_eq!(first["message_info"]["user_info"]["user_nickname"], "Bob");
    assert_eq!(first["message_info"]["group_info"]["group_id"], "100");
    assert_eq!(first["timestamp"], "2000");
    assert_eq!(first["session_id"], "g1");
    assert_eq!(
        first["raw_message"],
        json!([{"type": "text", "data": "sure"}])
    );

    let latest = call(
        &service,
        "message.get_by_time",
        json!({"start_time": 0, "end_time": 5000, "limit": 2}),
    )
    .await;
    assert_eq!(ids(&latest), ["m2", "m3"]);
    let earliest = call(
        &service,
        "message.get_by_time",
        json!({"start_time": 0, "end_time": 5000, "limit": 2, "limit_mode": "earliest"}),
    )
    .await;
    assert_eq!(ids(&earliest), ["m1", "m4"]);
    let humans = call(
        &service,
        "message.get_by_time_in_chat",
        json!({"chat_id": "g1", "start_time": 0, "filter_mai": true}),
    )
    .await;
    assert_eq!(ids(&humans), ["m1", "m2"]);

    let by_id = call(
        &service,
        "message.get_by_id",
        json!({"message_id": "m4", "chat_id": "", "stream_id": "", "include_binary_data": false}),
    )
    .await;
    assert_eq!(by_id["message"]["processed_plain_text"], "hi");
    assert_eq!(by_id["message"]["message_info"]["group_info"], json!(null));
    let elsewhere = call(
        &service,
        "message.get_by_id",
        json!({"message_id": "m4", "chat_id": "g1"}),
    )
    .await;
    assert_eq!(elsewhere["message"], json!(null));

    let count = call(
        &service,
        "message.count_new",
        json!({"chat_id": "g1", "since": "1500"}),
    )
    .await;
    assert_eq!(count["count"], 2);

    // get_recent reads the last `hours`: the seeded messages are decades old.
    let recent = call(
        &service,
        "message.get_recent",
        json!({"chat_id": "g1", "limit": 10}),
    )
    .await;
    assert_eq!(ids(&recent), Vec::<&str>::new());
    let sent = crate::builtin::store::now();
    store
        .append_message(crate::builtin::engine::NewMessage {
            message_id: "m5".into(),
            stream_id: "g1".into(),
            sender_name: "Alice".into(),
            text: "now".into(),
            time: Some(sent),
            ..Default::default()
        })
        .await
        .unwrap();
    let recent = call(
        &service,
        "message.get_recent",
        json!({"chat_id": "g1", "limit": 10}),
    )
    .await;
    assert_eq!(ids(&recent), ["m5"]);

    // build_readable takes back what get_* returned.
    let text = call(
        &service,
        "message.build_readable",
        json!({"messages": found["messages"]}),
    )
    .await;
    assert_eq!(
        text["text"],
        "[1970-01-01 00:33] Bob: sure\n[1970-01-01 00:50] bot: count me in"
    );
    let by_chat = call(
        &service,
        "message.build_readable",
        json!({"chat_id": "p1", "start_time": 0}),
    )
    .await;
    assert_eq!(by_chat["text"], "[1970-01-01 00:25] Carol: hi");

    for (capability, args, argument) in [
        ("message.get_recent", json!({"limit": 1}), "chat_id"),
        (
            "message.get_by_time",
            json!({"start_time": "yesterday"}),
            "start_time",
        ),
        (
            "message.get_by_time",
            json!({"limit_mode": "middle"}),
            "limit_mode",
        ),
        ("message.get_by_id", json!({}), "message_id"),
        (
            "message.build_readable",
            json!({"messages": [{"timestamp": "1"}]}),
            "messages[0]",
        ),
        (
            "message.count_new",
            json!({"chat_id": "g1", "since": []}),
            "since",
        ),
    ] {
        assert_bad_payload(&refused(&service, capability, args).await, argument);
    }
}

#[tokio::test]
async fn persons_are_found_by_account_name_and_id() {
    let (service, store) = service(&["person.*"]).await;
    store
        .upsert_person(PersonProfile {
            person_id: "p-alice".into(),
            person_name: "Alice".into(),
            nickname: "Ali".into(),
            platform: "qq".into(),
            user_id: "10086".into(),
            aliases: vec!["A".into()],
            profile: "likes board games".into(),
            traits: vec!["punctual".into()],
        })
        .await
        .unwrap();
    let by_account = call(
        &service,
        "person.get_id",
        json!({"platform": "qq", "user_id": "10086"}),
    )
    .await;
    assert_eq!(by_account["person_id"], "p-alice");
    let by_alias = call(
        &service,
        "person.get_id_by_name",
        json!({"person_name": "a"}),
    )
    .await;
    assert_eq!(by_alias["person_id"], "p-alice");
    let unknown = call(
        &service,
        "person.get_id",
        json!({"platform": "qq", "user_id": "1"}),
    )
    .await;
    assert_eq!(unknown["person_id"], json!(null));
    let profile = call(
        &service,
        "person.get_value",
        json!({"person_id": "p-alice", "field_name": "profile"}),
    )
    .await;
    assert_eq!(profile["value"], "likes board games");
    let traits = call(
        &service,
        "person.get_value",
        json!({"person_id": "p-alice", "field_name": "traits"}),
    )
    .await;
    assert_eq!(traits["value"], json!(["punctual"]));
    let fallback = call(
        &service,
        "person.get_value",
        json!({"person_id": "nobody", "field_name": "nickname", "default": "?"}),
    )
    .await;
    assert_eq!(fallback["value"], "?");
    // MaiBot's own fields: what the store keeps, and MaiBot's defaults for the rest.
    for (field, value) in [
        ("person_name", json!("Alice")),
        ("user_nickname", json!("Ali")),
        ("is_known", json!(true)),
        ("know_times", json!(0)),
        ("memory_points", json!(["trait:punctual:1.0"])),
        ("group_cardname_list", json!([])),
        ("name_reason", json!(null)),
        ("last_know", json!(null)),
    ] {
        let got = call(
            &service,
            "person.get_value",
            json!({"person_id": "p-alice", "field_name": field}),
        )
        .await;
        assert_eq!(got["value"], value, "{field}: {got}");
    }
    let stranger = call(
        &service,
        "person.get_value",
        json!({"person_id": "nobody", "field_name": "is_known"}),
    )
    .await;
    assert_eq!(stranger["value"], false);
    // A field MaiBot's Person lacks is MaiBot's failed call, naming the fields there are.
    let bad = call(
        &service,
        "person.get_value",
        json!({"person_id": "p-alice", "field_name": "password"}),
    )
    .await;
    assert_eq!(bad["success"], false, "{bad}");
    let error = bad["error"].as_str().unwrap();
    assert!(
        error.contains("\"password\"") && error.contains("memory_points"),
        "{error}"
    );
}

#[tokio::test]
async fn the_emoji_library_is_listed_registered_and_deleted_by_hash() {
    let (service, store) = service(&["emoji.*"]).await;
    let png = |tag: u8| vec![0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, tag];
    for (source, tag, description, emotions) in [
        ("happy.png", 1, "a smiling cat", vec!["happy", "cat"]),
        ("angry.png", 2, "an angry dog", vec!["angry"]),
    ] {
        store
            .add_emoji(NewEmoji {
                source: source.into(),
                data: Some(png(tag)),
                description: description.into(),
                emotions: emotions.into_iter().map(String::from).collect(),
                ..NewEmoji::default()
            })
            .await
            .unwrap();
    }
    let count = call(&service, "emoji.get_count", json!({})).await;
    assert_eq!(count["count"], 2);
    let info = call(&service, "emoji.get_info", json!({})).await;
    assert_eq!(info["info"]["current_count"], 2);
    let emotions = call(&service, "emoji.get_emotions", json!({})).await;
    assert_eq!(emotions["emotions"], json!(["angry", "cat", "happy"]));
    let all = call(&service, "emoji.get_all", json!({})).await;
    let descriptions: Vec<&str> = all["emojis"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["description"].as_str().unwrap())
        .collect();
    assert_eq!(descriptions, ["a smiling cat", "an angry dog"]);
    assert_eq!(all["emojis"][1]["emotion"], "angry");
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(all["emojis"][0]["base64"].as_str().unwrap())
        .unwrap();
    assert_eq!(decoded, png(1));
    let random = call(&service, "emoji.get_random", json!({"count": 5})).await;
    assert_eq!(random["emojis"].as_array().unwrap().len(), 2);
    let one = call(&service, "emoji.get_random", json!({"count": 1})).await;
    assert_eq!(one["emojis"].as_array().unwrap().len(), 1);
    let dog = call(
        &service,
        "emoji.get_by_description",
        json!({"description": "angry", "limit": 5}),
    )
    .await;
    assert_eq!(dog["emoji"]["description"], "an angry dog");

    let encoded = base64::engine::general_purpose::STANDARD.encode(png(3));
    let registered = call(
        &service,
        "emoji.register",
        json!({"emoji_base64": encoded, "emotions": ["sleepy"]}),
    )
    .await;
    assert_eq!(registered["success"], true);
    let hash = registered["hash"].as_str().unwrap().to_owned();
    assert_eq!(hash, crate::builtin::store::sha256_hex(&png(3)));
    let again = call(&service, "emoji.register", json!({"emoji_base64": encoded})).await;
    assert_eq!(
        (again["success"].clone(), again["replaced"].clone()),
        (json!(true), json!(false))
    );
    assert_eq!(store.emoji_count().await.unwrap(), 3);
    let deleted = call(&service, "emoji.delete", json!({"emoji_hash": hash})).await;
    assert_eq!(deleted["success"], true);
    assert_eq!(store.emoji_count().await.unwrap(), 2);
    let missing = call(&service, "emoji.delete", json!({"emoji_hash": hash})).await;
    assert_eq!(missing["success"], false);
    let not_image = base64::engine::general_purpose::STANDARD.encode(b"plain text");
    assert_bad_payload(
        &refused(
            &service,
            "emoji.register",
            json!({"emoji_base64": not_image}),
        )
        .await,
        "emoji_base64",
    );
    assert_bad_payload(
        &refused(&service, "emoji.get_random", json!({"count": -1})).await,
        "count",
    );
}

#[tokio::test]
async fn streams_are_listed_by_kind_and_found_by_address() {
    let (service, store) = service(&["chat.*"]).await;
    seed_chats(&store).await;
    let names = |result: &serde_json::Value| -> Vec<String> {
        result["streams"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["stream_id"].as_str().unwrap().to_owned())
            .collect()
    };
    let all = call(&service, "chat.get_all_streams", json!({"platform": "qq"})).await;
    assert_eq!(names(&all), ["g1", "p1"]);
    let groups = call(&service, "chat.get_group_streams", json!({})).await;
    assert_eq!(names(&groups), ["g1"]);
    assert_eq!(groups["streams"][0]["group_name"], "Board games");
    assert_eq!(groups["streams"][0]["is_group_session"], true);
    let private = call(
        &service,
        "chat.get_private_streams",
        json!({"platform": "qq"}),
    )
    .await;
    assert_eq!(private["streams"][0]["user_id"], "u9");
    let other = call(
        &service,
        "chat.get_all_streams",
        json!({"platform": "wechat"}),
    )
    .await;
    assert_eq!(names(&other), Vec::<String>::new());
    let everywhere = call(
        &service,
        "chat.get_all_streams",
        json!({"platform": "all_platforms"}),
    )
    .await;
    assert_eq!(names(&everywhere).len(), 2);
    let group = call(
        &service,
        "chat.get_stream_by_group_id",
        json!({"group_id": "100", "platform": "qq"}),
    )
    .await;
    assert_eq!(group["stream"]["stream_id"], "g1");
    let user = call(
        &service,
        "chat.get_stream_by_user_id",
        json!({"user_id": "u9"}),
    )
    .await;
    assert_eq!(user["stream"]["stream_id"], "p1");
    let none = call(
        &service,
        "chat.get_stream_by_user_id",
        json!({"user_id": "100"}),
    )
    .await;
    assert_eq!(none["stream"], json!(null));
    assert_bad_payload(
        &refused(&service, "chat.get_stream_by_group_id", json!({})).await,
        "group_id",
    );
}

#[tokio::test]
async fn knowledge_search_finds_memories_by_full_text() {
    let (service, store) = service(&["knowledge.search"]).await;
    for (title, content) in [
        ("games", "Alice hosts board games every Saturday"),
        ("food", "Bob is allergic to peanuts"),
    ] {
        store
            .add_memory(NewMemory {
                title: title.into(),
                content: content.into(),
                ..NewMemory::default()
            })
            .await
            .unwrap();
    }
    let hit = call(
        &service,
        "knowledge.search",
        json!({"query": "peanuts", "limit": 5}),
    )
    .await;
    let content = hit["content"].as_str().unwrap();
    assert!(content.contains("Bob is allergic to peanuts"), "{content}");
    assert!(!content.contains("Saturday"), "{content}");
    let miss = call(&service, "knowledge.search", json!({"query": "volcano"})).await;
    assert!(
        miss["content"].as_str().unwrap().contains("volcano"),
        "{miss}"
    );
    assert!(
        !miss["content"].as_str().unwrap().contains("peanuts"),
        "{miss}"
    );
    assert_bad_payload(
        &refused(&service, "knowledge.search", json!({"limit": 5})).await,
        "query",
    );
}

#[tokio::test]
async fn config_reads_the_bot_section_and_the_callers_own_config() {
    let (service, _) = service(&["config.*"]).await;
    let bot: BotConfig = toml::from_str(
        "nickname = \"Mai\"\nalias_names = [\"m\"]\nqq_account = \"42\"\n[extra.personality]\npersonality = \"calm\"\n",
    )
    .unwrap();
    service.set_bot_config(bot);
    service.configure_plugin(
        PLUGIN,
        vec!["config.*".into()],
        super::object(json!({"greeting": {"text": "hi"}})),
    );
    let get = |key: &str| json!({"key": key, "default": "fallback"});
    assert_eq!(
        call(&service, "config.get", get("bot.nickname")).await,
        json!({"success": true, "value": "Mai"})
    );
    assert_eq!(
        call(&service, "config.get", get("bot.alias_names")).await["value"],
        json!(["m"])
    );
    assert_eq!(
        call(&service, "config.get", get("personality.personality")).await["value"],
        "calm"
    );
    assert_eq!(
        call(&service, "config.get", get("bot.missing")).await["value"],
        "fallback"
    );
    let own = call(&service, "config.get_plugin", json!({"plugin_name": null})).await;
    assert_eq!(own["value"], json!({"greeting": {"text": "hi"}}));
    let keyed = call(
        &service,
        "config.get_plugin",
        json!({"key": "greeting.text"}),
    )
    .await;
    assert_eq!(keyed["value"], "hi");
    let all = call(&service, "config.get_all", json!({})).await;
    assert_eq!(all["value"], json!({"greeting": {"text": "hi"}}));
    let other = refused(
        &service,
        "config.get_plugin",
        json!({"plugin_name": "someone.else"}),
    )
    .await;
    assert_eq!(
        other.code,
        maitool_protocol::wire::ErrorCode::CapabilityDenied
    );
    assert_bad_payload(&refused(&service, "config.get", json!({})).await, "key");
}
