use maitool_protocol::rpc::RpcError;
use maitool_protocol::wire::ErrorCode;
use maitool_protocol::wire::methods::LogEntry;

use super::{for_maibot, record_plugin_id};

#[test]
fn a_maibot_runner_gets_only_codes_it_knows_and_the_original_in_the_details() {
    let mapped = for_maibot(RpcError::new(ErrorCode::ToolNotFound, "no such tool"));
    assert_eq!(mapped.code, ErrorCode::MethodNotAllowed);
    assert_eq!(mapped.message, "no such tool");
    assert_eq!(mapped.details["maitool_code"], "E_TOOL_NOT_FOUND");
    let mapped = for_maibot(RpcError::new(ErrorCode::Other("E_LATER".into()), "x"));
    assert_eq!(mapped.code, ErrorCode::Unknown);
    let kept = for_maibot(RpcError::new(ErrorCode::CapabilityDenied, "denied"));
    assert_eq!(kept.code, ErrorCode::CapabilityDenied);
    assert!(kept.details.is_empty());
    for code in ErrorCode::known() {
        assert!(code.to_maibot().is_maibot_code(), "{code}");
    }
}

#[test]
fn records_are_tagged_with_the_plugin_of_their_logger_or_none() {
    let entry = |plugin_id: &str, logger: &str| LogEntry {
        plugin_id: plugin_id.into(),
        logger_name: logger.into(),
        ..LogEntry::default()
    };
    let plugins = ["acme.y".to_owned(), "9lives.cat-tool".to_owned()];
    let tag = |plugin_id: &str, logger: &str| {
        record_plugin_id(&entry(plugin_id, logger), &plugins).map(str::to_owned)
    };
    assert_eq!(tag("acme.x", "whatever").as_deref(), Some("acme.x"));
    assert_eq!(tag("", "plugin.acme.y").as_deref(), Some("acme.y"));
    assert_eq!(tag("", "_maibot_plugin_acme_y").as_deref(), Some("acme.y"));
    assert_eq!(
        tag("", "_maibot_plugin__9lives_cat_tool.helpers").as_deref(),
        Some("9lives.cat-tool")
    );
    assert_eq!(tag("", "_maibot_plugin_unknown"), None);
    assert_eq!(tag("", "plugin_runtime.runner.main"), None);
    assert_eq!(tag("", "plugin."), None);
}
