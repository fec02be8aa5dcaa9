//! `database.*`: MaiBot's tables as read-only views of a real in-memory store, with the
//! arguments `maibot_sdk` sends and the bare results its runner hands back.

use serde_json::{Value, json};

use super::{call, seed_chats, service};
use crate::builtin::engine::{ImageData, NewMessage, PersonProfile};
use crate::builtin::store::{MaibotTable, NewEmoji, sha256_hex};

async fn seed_people(store: &crate::builtin::Store) {
    for (id, name, nickname, user_id, traits) in [
        (
            "p-alice",
            "Alice",
            "Ali",
            "u-alice",
            vec!["organised", "cheerful"],
        ),
        ("p-bob", "Bob", "", "u-bob", vec![]),
        ("p-carol", "", "Caz", "u-carol", vec!["direct"]),
    ] {
        store
            .upsert_person(PersonProfile {
                person_id: id.into(),
                person_name: name.into(),
                nickname: nickname.into(),
                platform: "qq".into(),
                user_id: user_id.into(),
                traits: traits.into_iter().map(String::from).collect(),
                ..PersonProfile::default()
            })
            .await
            .unwrap();
    }
}

fn ids(rows: &Value, key: &str) -> Vec<String> {
    rows.as_array()
        .unwrap_or_else(|| panic!("not rows: {rows}"))
        .iter()
        .map(|row| row[key].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn person_info_reads_with_maibot_field_names_filters_order_and_limit() {
    let (service, store) = service(&["database.*"]).await;
    seed_people(&store).await;
    let all = call(
        &service,
        "database.get",
        json!({"model_name": "PersonInfo", "filters": {}, "limit": null,
               "order_by": "-person_id", "single_result": false}),
    )
    .await;
    assert_eq!(ids(&all, "person_id"), ["p-carol", "p-bob", "p-alice"]);
    let alice = &all[2];
    assert_eq!(alice["user_nickname"], "Ali");
    assert_eq!(alice["person_name"], "Alice");
    assert_eq!(alice["platform"], "qq");
    assert_eq!(alice["is_known"], true);
    assert_eq!(alice["know_counts"], 0);
    assert_eq!(alice["group_cardname"], Value::Null);
    let points: Vec<String> =
        serde_json::from_str(alice["memory_points"].as_str().unwrap()).unwrap();
    assert_eq!(points, ["trait:organised:1.0", "trait:cheerful:1.0"]);
    assert_eq!(
        all[0]["person_name"],
        Value::Null,
        "an unnamed person: {all}"
    );
    // Every MaiBot field is in every row, in MaiBot's order.
    let fields: Vec<&str> = MaibotTable::PersonInfo
        .fields()
        .iter()
        .map(|f| f.name)
        .collect();
    assert_eq!(
        alice.as_object().unwrap().keys().collect::<Vec<_>>().len(),
        fields.len()
    );

    // The impression card's lookups: one row by a field, or null.
    let by_nickname = call(
        &service,
        "database.get",
        json!({"model_name": "PersonInfo", "filters": {"user_nickname": "Caz"},
               "single_result": true}),
    )
    .await;
    assert_eq!(by_nickname["person_id"], "p-carol");
    let nobody = call(
        &service,
        "database.get",
        json!({"model_name": "PersonInfo", "filters": {"person_id": "p-zed"},
               "single_result": true}),
    )
    .await;
    assert_eq!(nobody, Value::Null);
    let known = call(
        &service,
        "database.get",
        json!({"model_name": "PersonInfo", "filters": {"is_known": true}, "limit": 2,
               "order_by": ["person_id"]}),
    )
    .await;
    assert_eq!(ids(&known, "person_id"), ["p-alice", "p-bob"]);
    let unnamed = call(
        &service,
        "database.get",
        json!({"model_name": "PersonInfo", "filters": {"person_name": null}}),
    )
    .await;
    assert_eq!(ids(&unnamed, "person_id"), ["p-carol"]);
    let count = call(
        &service,
        "database.count",
        json!({"model_name": "PersonInfo", "filters": {"platform": "qq"}}),
    )
    .await;
    assert_eq!(count, 3);
    let queried = call(
        &service,
        "database.query",
        json!({"model_name": "PersonInfo", "query_type": "count",
               "filters": {"user_id": "u-bob"}, "order_by": [], "limit": null,
               "single_result": false, "data": null}),
    )
    .await;
    assert_eq!(queried, 1);
}

#[tokio::test]
async fn messages_images_and_chat_sessions_are_served_too() {
    let (service, store) = service(&["database.*"]).await;
    seed_chats(&store).await;
    let png = b"\x89PNG\r\n\x1a\nimage-bytes".to_vec();
    store
        .append_message(NewMessage {
            message_id: "m5".into(),
            stream_id: "g1".into(),
            sender_id: "u-Alice".into(),
            sender_name: "Alice".into(),
            images: vec![ImageData {
                mime_type: "image/png".into(),
                data: png.clone(),
                description: "a red square".into(),
            }],
            time: Some(4000.0),
            ..NewMessage::default()
        })
        .await
        .unwrap();
    store
        .add_emoji(NewEmoji {
            source: "smile".into(),
            data: Some(b"\x89PNG\r\n\x1a\nemoji".to_vec()),
            description: "smiling".into(),
            emotions: vec!["happy".into()],
            ..NewEmoji::default()
        })
        .await
        .unwrap();

    let group = call(
        &service,
        "database.get",
        json!({"model_name": "Messages", "filters": {"session_id": "g1", "user_nickname": "Alice"},
               "order_by": "timestamp"}),
    )
    .await;
    assert_eq!(ids(&group, "message_id"), ["m1", "m5"]);
    assert_eq!(group[0]["processed_plain_text"], "saturday?");
    assert_eq!(group[0]["timestamp"], "1970-01-01T00:16:40.000");
    assert_eq!(group[0]["group_id"], "100");
    assert_eq!(group[0]["group_name"], "Board games");
    assert_eq!(group[0]["is_picture"], false);
    assert_eq!(group[1]["is_picture"], true);
    let by_time = call(
        &service,
        "database.get",
        json!({"model_name": "Messages", "filters": {"timestamp": "1970-01-01T00:25:00"}}),
    )
    .await;
    assert_eq!(ids(&by_time, "message_id"), ["m4"]);
    let private = call(
        &service,
        "database.get",
        json!({"model_name": "Messages", "filters": {"group_id": null}}),
    )
    .await;
    assert_eq!(ids(&private, "message_id"), ["m4"]);

    let images = call(
        &service,
        "database.get",
        json!({"model_name": "Images", "order_by": "image_type"}),
    )
    .await;
    assert_eq!(ids(&images, "image_type"), ["emoji", "image"]);
    assert_eq!(images[1]["image_hash"], sha256_hex(&png));
    assert_eq!(images[1]["description"], "a red square");
    assert_eq!(images[0]["description"], "smiling");
    assert_eq!(images[0]["is_registered"], true);
    let by_hash = call(
        &service,
        "database.get",
        json!({"model_name": "Images", "filters": {"image_hash": sha256_hex(&png)},
               "single_result": true}),
    )
    .await;
    assert_eq!(by_hash["description"], "a red square");

    let sessions = call(
        &service,
        "database.get",
        json!({"model_name": "ChatSession", "order_by": "session_id"}),
    )
    .await;
    assert_eq!(ids(&sessions, "session_id"), ["g1", "p1"]);
    assert_eq!(sessions[0]["group_id"], "100");
    assert_eq!(sessions[0]["user_id"], Value::Null);
    assert_eq!(sessions[1]["user_id"], "u9");
    assert_eq!(sessions[1]["user_nickname"], "Carol");
    assert_eq!(
        sessions[0]["last_active_timestamp"],
        "1970-01-01T01:06:40.000"
    );
}

#[tokio::test]
async fn writes_unknown_models_and_bad_filters_answer_maibots_failure_shape() {
    let (service, store) = service(&["database.*"]).await;
    seed_people(&store).await;
    for (capability, args, wanted) in [
        (
            "database.save",
            json!({"model_name": "PersonInfo", "data": {"person_id": "p-x"}, "key_field": "id"}),
            "save of PersonInfo refused: the tables maitool serves",
        ),
        (
            "database.delete",
            json!({"model_name": "PersonInfo", "filters": {"person_id": "p-bob"}}),
            "delete of PersonInfo refused",
        ),
        (
            "database.query",
            json!({"model_name": "Messages", "query_type": "update", "data": {"x": 1}}),
            "update of Messages refused",
        ),
        (
            "database.query",
            json!({"model_name": "Images", "query_type": "create", "data": {"x": 1}}),
            "keep the plugin's own data with kv.*",
        ),
        (
            "database.get",
            json!({"model_name": "ChatStreams"}),
            "unknown model \"ChatStreams\": maitool serves PersonInfo, Messages, Images, ChatSession",
        ),
        (
            "database.get",
            json!({"model_name": "PersonInfo", "filters": {"password": "x"}}),
            "PersonInfo has no field \"password\" (its fields: id, is_known, person_id",
        ),
        (
            "database.get",
            json!({"model_name": "PersonInfo", "order_by": "-shoe_size"}),
            "no field \"shoe_size\"",
        ),
        (
            "database.get",
            json!({"model_name": "PersonInfo", "filters": {"user_id": ["a"]}}),
            "filter \"user_id\" must be a string, number, boolean or null",
        ),
        (
            "database.get",
            json!({"model_name": "PersonInfo", "filters": "user_id=1"}),
            "argument `filters` must be an object",
        ),
        (
            "database.query",
            json!({"model_name": "PersonInfo", "query_type": "truncate"}),
            "unknown query_type \"truncate\"",
        ),
        (
            "database.count",
            json!({}),
            "argument `model_name` is required",
        ),
    ] {
        let answer = call(&service, capability, args).await;
        assert_eq!(answer["success"], false, "{capability}: {answer}");
        let error = answer["error"].as_str().unwrap();
        assert!(
            error.starts_with(capability) && error.contains(wanted),
            "{capability}: {error}"
        );
    }
    // Nothing was written or deleted.
    let count = call(
        &service,
        "database.count",
        json!({"model_name": "PersonInfo"}),
    )
    .await;
    assert_eq!(count, 3);
}
