//! Grants, refusals of what maitool does not serve, and a host without a store.

use std::sync::Arc;

use maitool_protocol::wire::ErrorCode;
use serde_json::json;

use super::{PLUGIN, call, refused, service};
use crate::plugin::{CapabilityService, KvStore, MemorySink};

#[tokio::test]
async fn grants_are_exact_family_or_star_and_star_leaves_out_component() {
    let (service, _) = service(&["*"]).await;
    assert!(service.is_granted(PLUGIN, "emoji.get_count"));
    assert!(!service.is_granted(PLUGIN, "component.get_all_plugins"));
    let denied = refused(&service, "component.list_loaded_plugins", json!({})).await;
    assert_eq!(denied.code, ErrorCode::CapabilityDenied);
    service.configure_plugin(PLUGIN, vec!["component.*".into()], Default::default());
    assert!(service.is_granted(PLUGIN, "component.enable"));
    service.configure_plugin(PLUGIN, vec!["emoji.get_count".into()], Default::default());
    assert!(service.is_granted(PLUGIN, "emoji.get_count"));
    assert!(!service.is_granted(PLUGIN, "emoji.get_all"));
    let denied = refused(&service, "emoji.get_all", json!({})).await;
    assert_eq!(denied.code, ErrorCode::CapabilityDenied);
    assert!(denied.message.contains("emoji.get_all"), "{denied:?}");
}

#[tokio::test]
async fn a_name_neither_maibot_nor_maitool_knows_is_method_not_allowed() {
    let (service, _) = service(&["*"]).await;
    let unknown = refused(&service, "teleport.now", json!({})).await;
    assert_eq!(unknown.code, ErrorCode::MethodNotAllowed);
    assert!(unknown.message.contains("unknown capability teleport.now"));
}

#[tokio::test]
async fn api_calls_need_a_grant_but_replacing_ones_own_dynamic_apis_does_not() {
    let (service, _) = service(&["kv.*"]).await;
    let denied = refused(&service, "api.call", json!({"api_name": "units.convert"})).await;
    assert_eq!(denied.code, ErrorCode::CapabilityDenied, "{denied:?}");
    assert!(denied.message.contains("api.call"), "{denied:?}");
    // Not denied: it reaches the runtime, which this service has none of.
    let failed = refused(&service, "api.replace_dynamic", json!({"apis": []})).await;
    assert_eq!(failed.code, ErrorCode::CapabilityFailed, "{failed:?}");
    assert!(failed.message.contains("no plugin runtime"), "{failed:?}");
}

#[tokio::test]
async fn without_a_store_the_chat_world_fails_clearly_and_the_rest_serves() {
    let service = CapabilityService::new(
        Arc::new(MemorySink::default()),
        KvStore::in_memory().unwrap(),
    );
    service.configure_plugin(PLUGIN, vec!["*".into()], Default::default());
    for capability in [
        "message.get_recent",
        "emoji.get_count",
        "chat.get_all_streams",
        "person.get_id",
        "knowledge.search",
    ] {
        let err = refused(
            &service,
            capability,
            json!({"chat_id": "s", "query": "q", "platform": "qq", "user_id": "u"}),
        )
        .await;
        assert_eq!(
            err.code,
            ErrorCode::CapabilityFailed,
            "{capability}: {err:?}"
        );
        assert!(
            err.message.contains("no chat store"),
            "{capability}: {err:?}"
        );
    }
    let sent = call(
        &service,
        "send.text",
        json!({"text": "hi", "stream_id": "s"}),
    )
    .await;
    assert_eq!(sent["success"], true);
    let llm = refused(&service, "llm.generate", json!({"prompt": "hi"})).await;
    assert_eq!(llm.code, ErrorCode::CapabilityFailed);
    assert!(llm.message.contains("no [llm] section"), "{llm:?}");
}

#[test]
fn bare_family_names_are_refused_with_the_family_grant_to_use() {
    use crate::plugin::check_grant;
    for grant in ["*", "kv.*", "send.text", "kv.get"] {
        assert_eq!(check_grant(grant), Ok(()), "{grant}");
    }
    assert_eq!(
        check_grant("kv").unwrap_err().to_string(),
        "\"kv\" is a capability family, not a capability: grant \"kv.*\" for all of it, or name each (kv.get, kv.set, kv.delete, kv.list)"
    );
    assert!(
        check_grant("send")
            .unwrap_err()
            .to_string()
            .starts_with("\"send\" is a capability family, not a capability: grant \"send.*\""),
    );
    assert!(
        check_grant("everything")
            .unwrap_err()
            .to_string()
            .starts_with("\"everything\" is not a capability maitool serves; "),
    );
}

#[tokio::test]
async fn a_bare_family_name_grants_nothing() {
    let (service, _) = service(&["kv", "send"]).await;
    assert!(!service.is_granted(PLUGIN, "kv.get"));
    assert!(!service.is_granted(PLUGIN, "send.text"));
    service.configure_plugin(PLUGIN, vec!["kv.*".into()], Default::default());
    assert!(service.is_granted(PLUGIN, "kv.list"));
    assert!(!service.is_granted(PLUGIN, "send.text"));
}
