//! Human-readable `maitool status`.

pub(super) fn print_status(status: &serde_json::Value) {
    if let Some(path) = status.get("config").and_then(|c| c.as_str()) {
        println!("config: {path}");
    }
    println!("runners:");
    for runner in status
        .get("runners")
        .and_then(|r| r.as_array())
        .into_iter()
        .flatten()
    {
        let text = |key: &str| {
            runner
                .get(key)
                .map(|v| {
                    v.as_str()
                        .map(str::to_owned)
                        .unwrap_or_else(|| v.to_string())
                })
                .unwrap_or_default()
        };
        println!(
            "  {:16} {:10} pid={:8} restarts={} {}",
            text("name"),
            text("state"),
            text("pid"),
            text("restart_count"),
            runner
                .get("last_exit_reason")
                .and_then(|r| r.as_str())
                .map(|r| format!("last exit: {r}"))
                .unwrap_or_default()
        );
        for plugin in runner
            .get("plugins")
            .and_then(|p| p.as_array())
            .into_iter()
            .flatten()
        {
            let field = |key: &str| {
                plugin
                    .get(key)
                    .and_then(|v| v.as_str())
                    .unwrap_or_default()
                    .to_owned()
            };
            let reason = field("reason");
            println!("    {:28} {:8} {}", field("id"), field("state"), reason);
        }
    }
    let servers = status
        .get("mcp_servers")
        .and_then(|s| s.as_array())
        .cloned()
        .unwrap_or_default();
    if !servers.is_empty() {
        println!("mcp servers:");
        for server in servers {
            let field = |key: &str| {
                server
                    .get(key)
                    .map(|v| {
                        v.as_str()
                            .map(str::to_owned)
                            .unwrap_or_else(|| v.to_string())
                    })
                    .unwrap_or_default()
            };
            println!(
                "  {:16} {:12} tools={} {}",
                field("name"),
                field("state"),
                field("tool_count"),
                field("last_error").trim_matches('"')
            );
        }
    }
}
