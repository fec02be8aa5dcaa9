//! What tools and Actions declare to the host: visibility defaults that follow MaiBot's rule
//! (deferred unless core), chat scopes, required Action parameters, and typed outputs tied to
//! the declared output type.

use maitool_protocol::{ChatScope, Visibility};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::output::OutputType;
use crate::{Action, Tool, ToolOutput};

#[derive(Deserialize, JsonSchema)]
struct NoArgs {}

#[derive(Serialize, JsonSchema)]
struct Stats {
    count: u32,
}

#[derive(Serialize, JsonSchema)]
struct Label {
    label: String,
}

fn tool(name: &str) -> Tool {
    Tool::new(name, "test", |_: NoArgs, _ctx| async move {
        Ok(ToolOutput::text("ok"))
    })
}

fn action(name: &str) -> Action {
    Action::new(name, "test", |_input| async move { (true, String::new()) })
}

/// The visibility the host reads from a declaration, by the protocol's one rule.
fn host_reads(metadata: &maitool_protocol::JsonObject) -> Visibility {
    Visibility::of_declaration(metadata)
}

#[test]
fn a_tool_is_deferred_unless_core_and_the_host_reads_what_the_sdk_declares() {
    let cases = [
        (tool("plain"), Visibility::Deferred),
        (tool("core").core_tool(), Visibility::Visible),
        (
            tool("hidden").visibility(Visibility::Hidden),
            Visibility::Hidden,
        ),
    ];
    for (tool, expected) in cases {
        let declaration = tool.declaration("p");
        assert_eq!(
            declaration.metadata["visibility"],
            expected.as_str(),
            "{}",
            declaration.name
        );
        assert_eq!(host_reads(&declaration.metadata), expected);
    }
    assert_eq!(Visibility::default(), Visibility::Deferred);
    let scoped = tool("scoped")
        .chat_scope(ChatScope::Private)
        .declaration("p");
    assert_eq!(scoped.chat_scope, "private");
    assert_eq!(tool("any").declaration("p").chat_scope, "all");
}

#[test]
fn an_action_is_deferred_unless_core_and_lists_its_required_parameters() {
    let plain = action("plain")
        .required_parameter("name", "who")
        .parameter("mood", "how")
        .declaration("p");
    assert_eq!(host_reads(&plain.metadata), Visibility::Deferred);
    let schema = &plain.metadata["parameters_raw"];
    assert_eq!(schema["required"], json!(["name"]));
    assert_eq!(schema["properties"]["mood"]["type"], "string");
    assert_eq!(plain.metadata["action_parameters"]["name"], "who");

    let core = action("core").core_tool().declaration("p");
    assert_eq!(host_reads(&core.metadata), Visibility::Visible);
    assert_eq!(core.metadata["parameters_raw"]["required"], json!([]));
    let hidden = action("hidden")
        .visibility(Visibility::Hidden)
        .declaration("p");
    assert_eq!(host_reads(&hidden.metadata), Visibility::Hidden);
}

#[test]
fn a_typed_output_passes_only_as_the_declared_type() {
    let declared = Some(OutputType::of::<Stats>());
    let ok = ToolOutput::typed(Stats { count: 1 }).checked("t", declared);
    assert!(ok.is_ok());

    let wrong = ToolOutput::typed(Label { label: "x".into() })
        .checked("t", declared)
        .unwrap_err();
    assert!(
        wrong
            .message()
            .starts_with("tool t returned output of type ")
            && wrong.message().contains("Label but declares output type ")
            && wrong.message().ends_with("Stats"),
        "{}",
        wrong.message()
    );
    let undeclared = ToolOutput::typed(Stats { count: 1 })
        .checked("t", None)
        .unwrap_err();
    assert!(
        undeclared.message().contains("declares no output type"),
        "{}",
        undeclared.message()
    );
    // Untyped structured content is left to the host's check against the output schema;
    // replacing typed content with untyped drops the type.
    assert!(
        ToolOutput::structured(json!({"count": "x"}))
            .checked("t", declared)
            .is_ok()
    );
    assert!(
        ToolOutput::typed(Label { label: "x".into() })
            .with_structured(json!({"count": 1}))
            .checked("t", declared)
            .is_ok()
    );
    // The published schema is the declared type's.
    let declaration = tool("stats").output::<Stats>().declaration("p");
    assert_eq!(
        declaration.metadata["output_schema"]["properties"]["count"]["type"],
        "integer"
    );
}
