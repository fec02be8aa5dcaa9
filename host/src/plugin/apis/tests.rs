use maitool_protocol::wire::methods::ComponentDeclaration;
use serde_json::{Value, json};

use super::resolve::ApiRefusal;
use super::*;

fn api(name: &str, metadata: Value) -> ComponentDeclaration {
    let Value::Object(metadata) = metadata else {
        panic!("metadata is an object")
    };
    ComponentDeclaration {
        name: name.into(),
        component_type: "API".into(),
        metadata,
        ..ComponentDeclaration::default()
    }
}

fn registry() -> ApiRegistry {
    let registry = ApiRegistry::default();
    registry.register_plugin(
        "examples.units",
        &[
            api(
                "units.convert",
                json!({"public": true, "description": "Converts"}),
            ),
            api("units.convert", json!({"public": true, "version": "2"})),
            api(
                "units.table",
                json!({"public": false, "handler_name": "table_handler"}),
            ),
        ],
    );
    registry.register_plugin(
        "examples.geo",
        &[api("distance", json!({"public": true, "version": 3}))],
    );
    registry
}

#[test]
fn references_resolve_by_short_or_full_name_and_version() {
    let registry = registry();
    let found = registry.resolve("caller", "distance", "").unwrap();
    assert_eq!(found.registry_key, "examples.geo.distance@3");
    let found = registry
        .resolve("caller", "examples.units.units.convert@2", "")
        .unwrap();
    assert_eq!(found.version, "2");
    let found = registry.resolve("caller", "units.convert", "1").unwrap();
    assert_eq!(found.description, "Converts");
    let ambiguous = registry.resolve("caller", "units.convert", "").unwrap_err();
    assert_eq!(
        ambiguous.to_string(),
        "API units.convert is ambiguous (examples.units.units.convert@1, \
         examples.units.units.convert@2): name it as plugin_id.name@version"
    );
}

#[test]
fn a_private_api_is_its_plugins_alone() {
    let registry = registry();
    let refused = registry.resolve("caller", "units.table", "").unwrap_err();
    assert_eq!(
        refused,
        ApiRefusal::Private {
            name: "units.table".into(),
            owner: "examples.units".into()
        }
    );
    let own = registry
        .resolve("examples.units", "units.table", "")
        .unwrap();
    assert_eq!(own.handler_name, "table_handler");
    let listed: Vec<String> = registry
        .list("caller", "", "", "")
        .iter()
        .map(|api| api.registry_key.clone())
        .collect();
    assert_eq!(
        listed,
        [
            "examples.geo.distance@3",
            "examples.units.units.convert@1",
            "examples.units.units.convert@2"
        ]
    );
    assert_eq!(
        registry
            .list("examples.units", "examples.units", "", "")
            .len(),
        3
    );
}

#[test]
fn adapter_apis_are_refused_naming_the_adapter() {
    let registry = registry();
    let refused = registry
        .resolve("caller", "adapter.napcat.message.send_msg", "")
        .unwrap_err()
        .to_string();
    assert!(
        refused.starts_with(
            "API adapter.napcat.message.send_msg belongs to the napcat platform adapter \
             (maibot-team.napcat-adapter or maibot-team.snowluma-adapter), which maitool does \
             not have"
        ),
        "{refused}"
    );
    let refused = registry
        .resolve(
            "caller",
            "maibot-team.napcat-adapter.adapter.napcat.account.get_cookies",
            "",
        )
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains("the napcat adapter plugin maibot-team.napcat-adapter"),
        "{refused}"
    );
    // A loaded adapter's APIs are served like any other.
    registry.register_plugin(
        "maibot-team.napcat-adapter",
        &[api(
            "adapter.napcat.message.send_msg",
            json!({"public": true}),
        )],
    );
    assert!(
        registry
            .resolve("caller", "adapter.napcat.message.send_msg", "")
            .is_ok()
    );
    assert_eq!(
        registry
            .resolve("caller", "nothing.here", "4")
            .unwrap_err()
            .to_string(),
        "API nothing.here with version 4 not found (api.list shows the APIs this plugin can call)"
    );
    assert_eq!(
        registry.resolve("caller", "  ", "").unwrap_err(),
        ApiRefusal::MissingName
    );
}

#[test]
fn dynamic_apis_replace_and_go_offline_with_the_reason() {
    let registry = registry();
    let done = registry
        .replace_dynamic(
            "examples.geo",
            &[
                json!({"name": "live.a", "type": "API", "metadata": {"public": true}}),
                json!({"name": "live.b", "metadata": {"public": true, "version": "2"}}),
            ],
            "",
        )
        .unwrap();
    assert_eq!((done.registered, done.offlined), (2, 0));
    assert!(registry.resolve("caller", "live.a", "").unwrap().dynamic);
    let done = registry
        .replace_dynamic(
            "examples.geo",
            &[json!({"name": "live.b", "metadata": {"public": true, "version": "2"}})],
            "the bridge disconnected",
        )
        .unwrap();
    assert_eq!((done.registered, done.offlined), (1, 1));
    assert_eq!(
        registry.resolve("caller", "live.a", "").unwrap_err(),
        ApiRefusal::Unavailable("the bridge disconnected".into())
    );
    assert!(
        registry
            .list("caller", "examples.geo", "live.a", "")
            .is_empty()
    );
    // A static API is never replaced by a dynamic one, and nothing changes then.
    let err = registry
        .replace_dynamic(
            "examples.geo",
            &[json!({"name": "distance", "metadata": {"version": "3"}})],
            "",
        )
        .unwrap_err();
    assert_eq!(
        err,
        "a dynamic API cannot replace the static API examples.geo.distance@3"
    );
    assert!(registry.resolve("caller", "live.b", "").is_ok());
    for (bad, why) in [
        (json!("x"), "apis[0] must be an object"),
        (json!({"metadata": {}}), "apis[0] has no name"),
        (
            json!({"name": "t", "type": "TOOL"}),
            "apis[0] is a TOOL, not an API",
        ),
    ] {
        assert_eq!(
            registry.replace_dynamic("examples.geo", &[bad], ""),
            Err(why.into())
        );
    }
    // A new registration of the plugin replaces all of its APIs.
    registry.register_plugin("examples.geo", &[]);
    assert!(registry.plugin_apis("examples.geo").is_empty());
}

#[test]
fn a_malformed_declaration_is_left_out() {
    let registry = ApiRegistry::default();
    registry.register_plugin(
        "p",
        &[
            api("slow", json!({"timeout_ms": "soon"})),
            api("fine", json!({})),
        ],
    );
    let apis = registry.plugin_apis("p");
    assert_eq!(apis.len(), 1);
    assert_eq!(apis[0].registry_key, "p.fine@1");
    assert!(!apis[0].public);
}
