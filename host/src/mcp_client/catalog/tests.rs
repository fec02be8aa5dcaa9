use std::sync::Arc;

use rmcp::model::JsonObject;

use super::*;

fn tools(names: &[&'static str]) -> Vec<Tool> {
    names
        .iter()
        .map(|name| Tool::new(*name, "d", Arc::new(JsonObject::new())))
        .collect()
}

#[test]
fn collisions_resolve_first_wins_in_config_order() {
    let first = tools(&["echo", "add"]);
    let second = tools(&["echo", "time"]);
    let third = tools(&["echo"]);
    let catalog = Catalog::build(&[
        ServerTools {
            server_name: "a",
            tool_prefix: "",
            tools: &first,
        },
        ServerTools {
            server_name: "b",
            tool_prefix: "",
            tools: &second,
        },
        ServerTools {
            server_name: "c",
            tool_prefix: "c_",
            tools: &third,
        },
    ]);
    let names: Vec<String> = catalog
        .specs()
        .iter()
        .map(|spec| spec.name.clone())
        .collect();
    assert_eq!(names, ["echo", "add", "time", "c_echo"]);
    assert_eq!(
        catalog.route("echo"),
        Some(&Route {
            server: 0,
            mcp_name: "echo".to_owned()
        })
    );
    assert_eq!(
        catalog.route("c_echo"),
        Some(&Route {
            server: 2,
            mcp_name: "echo".to_owned()
        })
    );
    assert_eq!(catalog.specs()[0].metadata["server_name"], "a");
    assert_eq!(
        [0, 1, 2, 3].map(|index| catalog.exposed_count(index)),
        [2, 1, 1, 0]
    );
    assert!(catalog.route("nope").is_none());
}

#[test]
fn equal_inputs_build_equal_catalogs() {
    let list = tools(&["x"]);
    let build = || {
        Catalog::build(&[ServerTools {
            server_name: "a",
            tool_prefix: "",
            tools: &list,
        }])
    };
    assert_eq!(build(), build());
    assert_ne!(build(), Catalog::default());
}
