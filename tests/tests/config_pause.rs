//! An invalid plugin configuration pauses the plugin's tools (MaiBot's `config_error`) until a
//! reload brings a valid one, through a real `maitool serve` and the semantics runner.

mod ops_support;
mod semantics_support;

use semantics_support::Fixture;
use serde_json::json;

#[test]
fn an_invalid_configuration_pauses_the_plugin_until_a_reload_brings_a_valid_one() {
    let invalid = "[runners.plugins.\"examples.semantics\"]\nconfig = { times = 9 }\n";
    let fixture = Fixture::new("", "", invalid);
    let _serve = fixture.serve();

    // Loaded, paused, and saying why.
    let status = fixture.plugin_status("examples.semantics");
    assert_eq!(status["state"], "config_error", "{status}");
    let problem = "times must be between 1 and 5, got 9";
    assert!(
        status["reason"].as_str().unwrap().contains(problem),
        "{status}"
    );
    let (_, text, _) = fixture.run(&["status"]);
    assert!(
        text.lines()
            .any(|line| line.contains("examples.semantics ") && line.contains("config_error")),
        "{text}"
    );
    // Its tools are neither offered nor callable; the twin's are.
    let listed = fixture.names(&[]);
    assert!(!listed.contains(&"greet".to_owned()), "{listed:?}");
    assert!(listed.contains(&"plugin_examples_semantics_twin_whoami".to_owned()));
    let (code, refused) = fixture.call("greet", json!({}), &[]);
    assert_eq!(code, 1, "{refused}");
    assert_eq!(refused["metadata"]["error_code"], "E_PLUGIN_CONFIG_INVALID");
    assert!(
        refused["error_message"].as_str().unwrap().contains(problem),
        "{refused}"
    );

    // Fixed and reloaded: back without a restart (the runner keeps its pid).
    let pid = fixture.json(&["status", "--json"])["runners"][0]["pid"].clone();
    fixture.write(
        "",
        "",
        "[runners.plugins.\"examples.semantics\"]\nconfig = { greeting = \"hi\", times = 2 }\n",
    );
    let (code, out, err) = fixture.run(&["reload"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        fixture.plugin_status("examples.semantics")["state"],
        "loaded"
    );
    let (code, greeting) = fixture.call("greet", json!({}), &[]);
    assert_eq!((code, greeting["content"].clone()), (0, json!("hi hi")));
    assert!(fixture.names(&[]).contains(&"greet".to_owned()));

    // Broken again by a reload: paused again, and `reload` says so with exit 1.
    fixture.write(
        "",
        "",
        "[runners.plugins.\"examples.semantics\"]\nconfig = { greeting = \"hi\", times = 0 }\n",
    );
    let (code, out, _) = fixture.run(&["reload"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.lines().any(|line| line.trim_start().starts_with("paused")
            && line.contains("semantics/examples.semantics: invalid configuration: times must be between 1 and 5, got 0")),
        "{out}"
    );
    assert_eq!(
        fixture.plugin_status("examples.semantics")["state"],
        "config_error"
    );
    let (code, refused) = fixture.call("greet", json!({}), &[]);
    assert_eq!(code, 1);
    assert_eq!(refused["metadata"]["error_code"], "E_PLUGIN_CONFIG_INVALID");
    // Back to the configuration it ran with: delivered again, and running.
    fixture.write(
        "",
        "",
        "[runners.plugins.\"examples.semantics\"]\nconfig = { greeting = \"hi\", times = 2 }\n",
    );
    let (code, out, err) = fixture.run(&["reload"]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, greeting) = fixture.call("greet", json!({}), &[]);
    assert_eq!((code, greeting["content"].clone()), (0, json!("hi hi")));
    assert_eq!(
        fixture.json(&["status", "--json"])["runners"][0]["pid"],
        pid
    );
}
