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
fn a_collision_keeps_the_earlier_servers_name_and_the_later_tool_under_its_source_prefix() {
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
    assert_eq!(names, ["echo", "add", "mcp_b_echo", "time", "c_echo"]);
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
    assert_eq!(
        catalog.route("mcp_b_echo"),
        Some(&Route {
            server: 1,
            mcp_name: "echo".to_owned()
        })
    );
    assert_eq!(catalog.specs()[0].metadata["server_name"], "a");
    let renamed = catalog.spec("mcp_b_echo").unwrap();
    assert_eq!(renamed.metadata["server_name"], "b");
    assert_eq!(renamed.metadata["registry_original_name"], "echo");
    assert!(
        !catalog.specs()[0]
            .metadata
            .contains_key("registry_original_name")
    );
    assert_eq!(
        [0, 1, 2, 3].map(|index| catalog.exposed_count(index)),
        [2, 2, 1, 0]
    );
    assert!(catalog.route("nope").is_none());
}

#[test]
fn a_server_listing_a_name_twice_keeps_the_first() {
    let twice = tools(&["echo", "echo"]);
    let catalog = Catalog::build(&[ServerTools {
        server_name: "a",
        tool_prefix: "",
        tools: &twice,
    }]);
    assert_eq!(catalog.specs().len(), 1);
    assert_eq!(catalog.exposed_count(0), 1);
}

#[test]
fn an_alias_never_takes_a_name_a_server_exposes() {
    let first = tools(&["echo"]);
    let second = tools(&["echo", "mcp_b_echo"]);
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
    ]);
    let names: Vec<String> = catalog
        .specs()
        .iter()
        .map(|spec| spec.name.clone())
        .collect();
    assert_eq!(names.len(), 3);
    assert_eq!(names[0], "echo");
    assert!(
        names[1].starts_with("mcp_b_echo_") && names[1].len() == "mcp_b_echo".len() + 13,
        "{names:?}"
    );
    assert_eq!(names[2], "mcp_b_echo");
    assert_eq!(catalog.route(&names[1]).unwrap().mcp_name, "echo");
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
