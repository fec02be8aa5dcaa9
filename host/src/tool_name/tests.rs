use super::{Origin, renamed};

fn plugin(source: &str) -> Origin<'_> {
    Origin {
        kind: "plugin",
        provider: "plugin_runtime",
        source,
    }
}

#[test]
fn a_duplicate_is_prefixed_with_its_kind_and_source_and_sanitised() {
    assert_eq!(
        renamed(plugin("acme.web"), "search", |_| false).as_deref(),
        Some("plugin_acme_web_search")
    );
    let mcp = Origin {
        kind: "mcp",
        provider: "mcp",
        source: "files",
    };
    assert_eq!(
        renamed(mcp, "read", |_| false).as_deref(),
        Some("mcp_files_read")
    );
}

#[test]
fn a_source_that_is_the_kind_itself_is_not_repeated() {
    let builtin = Origin {
        kind: "builtin",
        provider: "builtin",
        source: "builtin",
    };
    assert_eq!(
        renamed(builtin, "search", |_| false).as_deref(),
        Some("builtin_search")
    );
}

#[test]
fn a_taken_or_long_name_gets_a_stable_digest() {
    let taken = renamed(plugin("acme.web"), "search", |name| {
        name == "plugin_acme_web_search"
    })
    .unwrap();
    assert!(taken.starts_with("plugin_acme_web_search_"), "{taken}");
    assert_eq!(taken.len(), "plugin_acme_web_search".len() + 13);
    // The same tool gets the same name every time.
    assert_eq!(
        renamed(plugin("acme.web"), "search", |name| name
            == "plugin_acme_web_search"),
        Some(taken)
    );

    let long = renamed(
        plugin("a.very.long.plugin.identifier.of.someone"),
        &"x".repeat(40),
        |_| false,
    )
    .unwrap();
    assert_eq!(long.len(), 51 + 13, "{long}");
    assert!(
        long.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    );
}

#[test]
fn a_name_taken_in_every_form_is_none() {
    assert_eq!(renamed(plugin("p"), "t", |_| true), None);
}
