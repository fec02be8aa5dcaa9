//! `maitool definitions` in every model API shape and `maitool plugins`, through the real
//! binary, in-process and against `maitool serve`.

use serde_json::{Value, json};

mod ops_support;

use ops_support::Fixture;

/// The function entries of a rendered `tools` value, checked against the documented shape
/// of each API; returns (name, description, schema).
fn functions(format: &str, tools: &Value) -> Vec<(String, String, Value)> {
    let tools = tools
        .as_array()
        .unwrap_or_else(|| panic!("{format}: tools is not an array: {tools}"));
    let keys =
        |item: &Value| -> Vec<String> { item.as_object().unwrap().keys().cloned().collect() };
    let text = |item: &Value, key: &str| {
        item[key]
            .as_str()
            .unwrap_or_else(|| panic!("{format}: no {key} in {item}"))
            .to_owned()
    };
    match format {
        // {"type": "function", "function": {"name", "description", "parameters"}}
        "openai" => tools
            .iter()
            .map(|item| {
                assert_eq!(keys(item), ["function", "type"], "{item}");
                assert_eq!(item["type"], "function");
                let function = &item["function"];
                assert_eq!(
                    keys(function),
                    ["description", "name", "parameters"],
                    "{item}"
                );
                (
                    text(function, "name"),
                    text(function, "description"),
                    function["parameters"].clone(),
                )
            })
            .collect(),
        // {"type": "function", "name", "description", "parameters", "strict"}
        "openai-responses" => tools
            .iter()
            .map(|item| {
                assert_eq!(
                    keys(item),
                    ["description", "name", "parameters", "strict", "type"],
                    "{item}"
                );
                assert_eq!(item["type"], "function");
                (
                    text(item, "name"),
                    text(item, "description"),
                    item["parameters"].clone(),
                )
            })
            .collect(),
        // {"name", "description", "input_schema"}
        "anthropic" => tools
            .iter()
            .map(|item| {
                assert_eq!(
                    keys(item),
                    ["description", "input_schema", "name"],
                    "{item}"
                );
                (
                    text(item, "name"),
                    text(item, "description"),
                    item["input_schema"].clone(),
                )
            })
            .collect(),
        // [{"functionDeclarations": [{"name", "description", "parameters"?}]}]
        "gemini" => {
            assert_eq!(tools.len(), 1, "one Tool object holds every declaration");
            assert_eq!(keys(&tools[0]), ["functionDeclarations"]);
            tools[0]["functionDeclarations"]
                .as_array()
                .unwrap()
                .iter()
                .map(|declaration| {
                    for key in keys(declaration) {
                        assert!(
                            ["name", "description", "parameters"].contains(&key.as_str()),
                            "{declaration}"
                        );
                    }
                    let schema = declaration
                        .get("parameters")
                        .cloned()
                        .unwrap_or(Value::Null);
                    check_gemini_schema(&schema);
                    (
                        text(declaration, "name"),
                        text(declaration, "description"),
                        schema,
                    )
                })
                .collect()
        }
        // MaiBot's to_llm_definition: {"name", "description", "parameters_schema"?}
        "maibot" => tools
            .iter()
            .map(|item| {
                for key in keys(item) {
                    assert!(
                        ["name", "description", "parameters_schema"].contains(&key.as_str()),
                        "{item}"
                    );
                }
                (
                    text(item, "name"),
                    text(item, "description"),
                    item.get("parameters_schema")
                        .cloned()
                        .unwrap_or(Value::Null),
                )
            })
            .collect(),
        other => panic!("unknown format {other}"),
    }
}

/// Gemini's schema is an OpenAPI subset; unknown keys fail the whole request.
fn check_gemini_schema(schema: &Value) {
    const KEYS: [&str; 21] = [
        "type",
        "format",
        "title",
        "description",
        "nullable",
        "enum",
        "maxItems",
        "minItems",
        "properties",
        "required",
        "minProperties",
        "maxProperties",
        "minLength",
        "maxLength",
        "pattern",
        "example",
        "anyOf",
        "propertyOrdering",
        "default",
        "items",
        "minimum",
    ];
    let Some(object) = schema.as_object() else {
        return;
    };
    for (key, value) in object {
        assert!(
            KEYS.contains(&key.as_str()) || key == "maximum",
            "Gemini schema key {key} in {schema}"
        );
        match key.as_str() {
            "properties" => value
                .as_object()
                .unwrap()
                .values()
                .for_each(check_gemini_schema),
            "items" => check_gemini_schema(value),
            "anyOf" => value
                .as_array()
                .unwrap()
                .iter()
                .for_each(check_gemini_schema),
            _ => {}
        }
    }
}

/// The definitions and the reminder's entries, sorted by name.
fn sorted(format: &str, answer: &Value) -> (Vec<(String, String, Value)>, Vec<Value>) {
    let mut functions = functions(format, &answer["tools"]);
    functions.sort_by(|a, b| a.0.cmp(&b.0));
    let mut deferred = answer["deferred_reminder"]["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    deferred.sort_by_key(|entry| entry["name"].as_str().unwrap_or_default().to_owned());
    (functions, deferred)
}

const FORMATS: [&str; 5] = [
    "openai",
    "openai-responses",
    "anthropic",
    "gemini",
    "maibot",
];

/// Checks one `definitions --json` answer; returns the exposed names.
fn check_definitions(format: &str, answer: &Value) -> Vec<String> {
    assert_eq!(answer["format"], format);
    let exposed = functions(format, &answer["tools"]);
    for (name, description, schema) in &exposed {
        assert!(
            !description.is_empty(),
            "{format}: {name} has no description"
        );
        if format != "gemini" && format != "maibot" {
            assert_eq!(schema["type"], "object", "{format}: {name}: {schema}");
            assert!(
                schema.get("$schema").is_none(),
                "{format}: {name} keeps $schema"
            );
        }
    }
    let names: Vec<String> = exposed.into_iter().map(|(name, _, _)| name).collect();
    for visible in ["roll_dice", "render_badge", "reply", "tool_search", "echo"] {
        assert!(
            names.iter().any(|n| n == visible),
            "{format}: visible {visible} missing from {names:?}"
        );
    }
    let reminder = &answer["deferred_reminder"];
    let deferred: Vec<&str> = reminder["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    let text = reminder["text"].as_str().unwrap();
    assert!(
        text.starts_with("<system-reminder>") && text.ends_with("</system-reminder>"),
        "{text}"
    );
    for name in ["describe_numbers", "ex_add", "ex_slow"] {
        assert!(
            deferred.contains(&name),
            "{format}: deferred {name} missing from the reminder {deferred:?}"
        );
        assert!(
            text.contains(&format!(". {name}: ")),
            "{format}: {name} not in the reminder text"
        );
        assert!(
            !names.iter().any(|n| n == name),
            "{format}: deferred {name} was exposed"
        );
    }
    names
}

#[test]
fn definitions_match_each_apis_documented_shape_in_process_and_against_serve() {
    // Without the misbehaving runner: its `echo` clashes with dice's, and which one wins
    // depends on which runner registers first.
    let fixture = Fixture::new(&["dice", "media"], "", "");
    let mut local = Vec::new();
    for format in FORMATS {
        let answer = fixture.json(&["definitions", "--format", format, "--json"]);
        check_definitions(format, &answer);
        local.push(answer);
    }
    let describe = local[4]["deferred_reminder"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "describe_numbers")
        .unwrap()
        .clone();
    assert_eq!(
        describe,
        json!({"name": "describe_numbers", "description": "Summarise a list of numbers."})
    );

    let (code, _, err) = fixture.maitool(&["definitions", "--format", "llama"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown definitions format `llama`"), "{err}");
    let (code, out, _) = fixture.maitool(&["definitions", "--format", "anthropic"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("exposed to the model (anthropic, ") && out.contains("2. "),
        "{out}"
    );

    let serve = fixture.serve(&[]);
    for (format, local) in FORMATS.iter().zip(&local) {
        let remote = fixture.json(&["definitions", "--format", format, "--json"]);
        // Plugin tools come in the order their runners registered, which varies between
        // starts; everything else must match.
        assert_eq!(
            sorted(format, &remote),
            sorted(format, local),
            "{format}: serve and in-process disagree"
        );
    }
    // A tool_search in a session discovers a deferred tool: from then on that session's
    // definitions expose it, and only that session's.
    let session = ["--session-id", "s1"];
    check_definitions(
        "openai",
        &fixture.json(
            &[
                &["definitions", "--format", "openai", "--json"][..],
                &session,
            ]
            .concat(),
        ),
    );
    let found = fixture.json(
        &[
            &[
                "call",
                "tool_search",
                "--args",
                r#"{"query": "describe_numbers", "limit": 1}"#,
                "--json",
            ][..],
            &session,
        ]
        .concat(),
    );
    assert_eq!(
        found["structured_content"]["matched_tool_names"],
        json!(["describe_numbers"]),
        "{found}"
    );
    let after = fixture.json(
        &[
            &["definitions", "--format", "openai", "--json"][..],
            &session,
        ]
        .concat(),
    );
    let names: Vec<String> = functions("openai", &after["tools"])
        .into_iter()
        .map(|(name, _, _)| name)
        .collect();
    assert!(names.contains(&"describe_numbers".to_owned()), "{names:?}");
    let still_deferred = after["deferred_reminder"]["tools"].as_array().unwrap();
    assert!(
        !still_deferred
            .iter()
            .any(|t| t["name"] == "describe_numbers")
    );
    let other = fixture.json(&[
        "definitions",
        "--format",
        "openai",
        "--json",
        "--session-id",
        "s2",
    ]);
    check_definitions("openai", &other);
    serve.stop();
}

#[test]
fn plugins_shows_versions_runners_states_reasons_and_components() {
    let fixture = Fixture::new(&["dice", "media", "misbehaving"], "", "");
    // A plugin that failed to load fails the one-shot verb, named on stderr with its reason,
    // after the listing.
    let (code, out, err) = fixture.maitool(&["plugins", "--json"]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.lines().any(|line| line
            .starts_with("maitool: plugin examples.fails_on_load failed to load: ")
            && line.contains("deliberate on_load failure")),
        "{err}"
    );
    let local: Value = serde_json::from_str(&out).unwrap();
    let plugins = local.as_array().unwrap();
    let ids: Vec<(&str, &str)> = plugins
        .iter()
        .map(|p| (p["runner"].as_str().unwrap(), p["id"].as_str().unwrap()))
        .collect();
    // Runners in configuration order; a runner's plugins by id.
    assert_eq!(
        ids,
        [
            ("dice", "examples.dice"),
            ("media", "examples.media"),
            ("misbehaving", "examples.fails_on_load"),
            ("misbehaving", "examples.misbehaving"),
        ]
    );
    let plugin = |id: &str| plugins.iter().find(|p| p["id"] == id).unwrap();
    let media = plugin("examples.media");

    assert_eq!(
        (
            media["version"].as_str(),
            media["runner"].as_str(),
            media["state"].as_str()
        ),
        (Some("1.0.0"), Some("media"), Some("loaded"))
    );
    let describe = media["components"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["full_name"] == "examples.media.describe_numbers")
        .unwrap();
    assert_eq!(
        describe,
        &json!({"full_name": "examples.media.describe_numbers", "component_type": "TOOL", "visibility": "deferred", "enabled": true, "legacy_action": false, "runs": "when called by name (`maitool call`, a model's tool call)"})
    );
    let failed = plugin("examples.fails_on_load");
    assert_eq!(failed["runner"], "misbehaving");
    assert_eq!(failed["state"], "failed");
    assert!(
        failed["reason"]
            .as_str()
            .unwrap()
            .contains("deliberate on_load failure"),
        "{failed}"
    );

    let (code, out, _) = fixture.maitool(&["plugins"]);
    assert_eq!(code, 3);
    assert!(
        out.contains("examples.fails_on_load")
            && out.contains("failed: ")
            && out.contains("examples.dice.roll_dice"),
        "{out}"
    );

    let serve = fixture.serve(&[]);
    // Each launch has a sandbox of its own (a fresh temporary folder): compared by its state.
    let without_launch = |plugins: &Value| -> Value {
        let mut plugins = plugins.clone();
        for plugin in plugins.as_array_mut().unwrap() {
            let sandbox = plugin.as_object_mut().unwrap().remove("sandbox");
            plugin["sandbox_state"] = sandbox.map(|s| s["state"].clone()).unwrap_or_default();
        }
        plugins
    };
    assert_eq!(
        without_launch(&fixture.json(&["plugins", "--json"])),
        without_launch(&local),
        "serve and in-process disagree"
    );
    let (code, _, err) = fixture.maitool(&["disable", "examples.dice.echo"]);
    assert_eq!(code, 0, "{err}");
    let remote = fixture.json(&["plugins", "--json"]);
    let echo = remote[0]["components"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["full_name"] == "examples.dice.echo")
        .unwrap()
        .clone();
    assert_eq!(
        echo["enabled"], false,
        "an operator's disable shows: {echo}"
    );
    serve.stop();
}

#[test]
fn restart_brings_a_failed_runner_back_and_needs_a_running_serve() {
    // No restarts allowed: one SIGKILL marks the runner failed for good.
    let fixture = Fixture::new(&["dice"], "max_restarts = 0\n", "");
    let (code, _, err) = fixture.maitool(&["restart", "dice"]);
    assert_eq!(code, 2, "restart without serve: {err}");
    assert!(err.contains("no maitool serve is running"), "{err}");

    let serve = fixture.serve(&[]);
    let runner = |fixture: &Fixture| fixture.json(&["status", "--json"])["runners"][0].clone();
    let wait_for = |state: &str| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        loop {
            let now = runner(&fixture);
            if now["state"] == state {
                return now;
            }
            assert!(std::time::Instant::now() < deadline, "not {state}: {now}");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    };
    let first = wait_for("ready");
    let pid = first["pid"].as_i64().unwrap() as i32;
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    let failed = wait_for("failed");
    assert!(failed["pid"].is_null(), "{failed}");
    // Its plugin does not look loaded while the runner is failed.
    let plugin_state = |fixture: &Fixture| {
        let plugins = fixture.json(&["plugins", "--json"]);
        let dice = plugins
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["runner"] == "dice")
            .cloned()
            .unwrap_or_else(|| panic!("no plugin of runner dice: {plugins}"));
        dice["state"].clone()
    };
    assert_eq!(plugin_state(&fixture), "failed");

    let (code, out, err) = fixture.maitool(&["restart", "dice"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("restarting runner dice"), "{out}");
    let back = wait_for("ready");
    assert_ne!(back["pid"].as_i64().unwrap() as i32, pid);
    assert_eq!(plugin_state(&fixture), "loaded");
    let (code, out, err) = fixture.maitool(&[
        "call",
        "calculate",
        "--args",
        r#"{"a": 2, "b": 3, "op": "add"}"#,
    ]);
    assert_eq!((code, out.trim()), (0, "5"), "{err}");

    let (code, _, err) = fixture.maitool(&["restart", "nobody"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no runner nobody"), "{err}");
    drop(serve);
}
