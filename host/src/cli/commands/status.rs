//! Human-readable `maitool status`.

use serde_json::Value;

use crate::circuit::CircuitStatus;
use crate::cli::output::outln;

/// A field as text: strings as they are, null or absent as empty, anything else as JSON.
fn text(value: &Value, key: &str) -> String {
    match value.get(key) {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
    }
}

fn items<'a>(value: &'a Value, key: &str) -> impl Iterator<Item = &'a Value> {
    value
        .get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

/// `label` and the field `key`, or nothing when the field is empty.
fn labelled(value: &Value, key: &str, label: &str) -> String {
    match text(value, key) {
        field if field.is_empty() => String::new(),
        field => format!("{label}{field}"),
    }
}

/// The strings of an array field, joined with `, `.
fn names(value: &Value, key: &str) -> String {
    items(value, key)
        .filter_map(Value::as_str)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `plugins: 2 of 4 loaded; not loaded: a (failed), b (inactive)`; each reason is on the
/// plugin's own line under its runner.
fn plugins_line(plugins: &Value) -> String {
    let not_loaded: Vec<String> = items(plugins, "not_loaded")
        .map(|plugin| format!("{} ({})", text(plugin, "id"), text(plugin, "state")))
        .collect();
    let mut line = format!(
        "plugins: {} of {} loaded",
        text(plugins, "loaded"),
        text(plugins, "total")
    );
    if !not_loaded.is_empty() {
        line.push_str(&format!("; not loaded: {}", not_loaded.join(", ")));
    }
    line
}

pub(super) fn print_status(status: &Value) -> anyhow::Result<()> {
    let socket = text(status, "control_socket");
    if text(status, "answered_by") == "serve" {
        outln!("host: maitool serve on {socket}")?;
    } else {
        outln!("host: one-shot, started for this command (no maitool serve on {socket})")?;
    }
    let config = text(status, "config");
    if !config.is_empty() {
        outln!("config: {config}")?;
    }
    if status.get("ready").and_then(Value::as_bool) == Some(false) {
        let waiting = names(status, "waiting_for");
        if waiting.is_empty() {
            outln!("ready: no, the first tool listing is not complete yet")?;
        } else {
            outln!("ready: no, the first tool listing waits for {waiting}")?;
        }
    }
    if let Some(cluster) = status.get("cluster") {
        super::cluster::print_cluster(cluster)?;
    }
    if let Some(plugins) = status.get("plugins") {
        outln!("{}", plugins_line(plugins))?;
    }
    outln!("runners:")?;
    for runner in items(status, "runners") {
        outln!(
            "  {:16} {:10} pid={:8} restarts={} {}",
            text(runner, "name"),
            text(runner, "state"),
            text(runner, "pid"),
            text(runner, "restart_count"),
            labelled(runner, "last_exit_reason", "last exit: ")
        )?;
        if let Some(environment) = runner.get("environment").filter(|e| e.is_object()) {
            print_environment(environment)?;
        }
        if let Some(sandbox) = runner
            .get("sandbox")
            .filter(|s| !s.is_null())
            .and_then(|s| serde_json::from_value::<crate::sandbox::SandboxStatus>(s.clone()).ok())
        {
            outln!("    sandbox: {}", sandbox.line())?;
        }
        for plugin in items(runner, "plugins") {
            outln!(
                "    {:28} {:8} {}",
                text(plugin, "id"),
                text(plugin, "state"),
                text(plugin, "reason")
            )?;
            let unserved = names(plugin, "unserved_capabilities");
            if !unserved.is_empty() {
                outln!("      declares capabilities maitool does not serve: {unserved}")?;
            }
            if let Some(circuit) = plugin
                .get("circuit")
                .and_then(|c| serde_json::from_value::<CircuitStatus>(c.clone()).ok())
            {
                outln!("      {}", super::plugins::circuit_line(&circuit))?;
            }
        }
    }
    print_pools(status)?;
    let mut servers = items(status, "mcp_servers").peekable();
    if servers.peek().is_some() {
        outln!("mcp servers:")?;
        for server in servers {
            outln!(
                "  {:16} {:12} tools={} {}",
                text(server, "name"),
                text(server, "state"),
                text(server, "tool_count"),
                text(server, "last_error")
            )?;
            for problem in items(server, "schema_errors") {
                outln!(
                    "    schema does not compile, arguments unchecked: {}",
                    problem.as_str().unwrap_or_default()
                )?;
            }
        }
    }
    Ok(())
}

/// Runner pools: where each listens, the version registered, and each connected member.
fn print_pools(status: &Value) -> anyhow::Result<()> {
    let mut pools = items(status, "pools").peekable();
    if pools.peek().is_none() {
        return Ok(());
    }
    outln!("pools:")?;
    for pool in pools {
        let members: Vec<&Value> = items(pool, "members").collect();
        let ready = members
            .iter()
            .filter(|member| text(member, "state") == "ready")
            .count();
        outln!(
            "  {:16} {} on {}{} members={} ready={}{}",
            text(pool, "name"),
            text(pool, "plugin"),
            text(pool, "listen"),
            if pool.get("tls") == Some(&Value::Bool(true)) {
                " (TLS)"
            } else {
                ""
            },
            members.len(),
            ready,
            labelled(pool, "registered_version", " version=")
        )?;
        for member in members {
            outln!(
                "    {:20} {:8} from {} in_flight={} calls={} version={}{}",
                text(member, "name"),
                text(member, "state"),
                text(member, "address"),
                text(member, "in_flight"),
                text(member, "calls"),
                text(member, "plugin_version"),
                labelled(member, "runner_version", " build=")
            )?;
        }
    }
    Ok(())
}

/// A MaiBot runner's environment: the interpreter, and while it is prepared the step and the
/// installer's latest line (or, after a failure, why).
fn print_environment(environment: &Value) -> anyhow::Result<()> {
    let state = text(environment, "state");
    let venv = text(environment, "venv");
    let place = if venv.is_empty() {
        format!("{} (the runner's own python)", text(environment, "python"))
    } else {
        format!("{venv} (managed)")
    };
    outln!("    python environment: {state}, {place}")?;
    let detail = text(environment, "detail");
    if !detail.is_empty() {
        outln!("      {detail}")?;
    }
    let last = text(environment, "last_output");
    if !last.is_empty() {
        outln!("      {last}")?;
    }
    Ok(())
}
