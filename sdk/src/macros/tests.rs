//! The macros declare exactly what the builder declares: the component declaration the
//! runner sends the host is compared field by field.

use std::time::Duration;

use maitool_protocol::wire::methods::ComponentDeclaration;
use serde_json::json;

use crate::prelude::*;

#[crate::args]
struct RollArgs {
    /// Sides of each die.
    sides: u32,
    /// How many dice (default 1).
    count: Option<u32>,
}

#[crate::output]
struct Rolled {
    /// The sum of the faces.
    total: u32,
}

/// Roll dice and report the total.
///
/// Faces are uniform.
#[crate::tool(
    name = "roll_dice",
    title = "Dice",
    core,
    timeout_ms = 5000,
    chat_scope = "group",
    output = Rolled,
    platforms = ["telegram", "QQ"],
    stop_after_execution
)]
async fn roll(
    #[doc = "Sides of each die."] sides: u32,
    #[doc = "How many dice (default 1)."] count: Option<u32>,
    ctx: &ToolContext,
) -> Result<ToolOutput, ToolError> {
    let _ = ctx.stream_id();
    Ok(ToolOutput::structured(Rolled {
        total: sides * count.unwrap_or(1),
    }))
}

fn roll_by_builder() -> Tool {
    Tool::new(
        "roll_dice",
        "Roll dice and report the total.\n\nFaces are uniform.",
        |args: RollArgs, _ctx: ToolContext| async move {
            Ok(ToolOutput::structured(Rolled {
                total: args.sides * args.count.unwrap_or(1),
            }))
        },
    )
    .title("Dice")
    .core_tool()
    .timeout(Duration::from_millis(5000))
    .chat_scope(ChatScope::Group)
    .output::<Rolled>()
    .platforms(["telegram", "QQ"])
    .stop_after_execution()
}

/// Asserts two declarations are equal, naming the first field (or metadata key) that differs.
fn assert_same(by_macro: &ComponentDeclaration, by_builder: &ComponentDeclaration) {
    assert_eq!(by_macro.name, by_builder.name, "name");
    assert_eq!(by_macro.component_type, by_builder.component_type);
    assert_eq!(by_macro.plugin_id, by_builder.plugin_id);
    assert_eq!(by_macro.chat_scope, by_builder.chat_scope, "chat_scope");
    assert_eq!(by_macro.allowed_session, by_builder.allowed_session);
    let keys = |d: &ComponentDeclaration| d.metadata.keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(by_macro), keys(by_builder), "metadata keys");
    for (key, value) in &by_builder.metadata {
        assert_eq!(by_macro.metadata.get(key), Some(value), "metadata.{key}");
    }
    assert_eq!(by_macro, by_builder);
}

#[test]
fn the_tool_macro_declares_what_the_builder_declares() {
    let by_macro = roll_tool().declaration("examples.dice");
    let by_builder = roll_by_builder().declaration("examples.dice");
    assert_same(&by_macro, &by_builder);
    // What was compared is what was asked for, not two equal defaults.
    let metadata = &by_macro.metadata;
    assert_eq!(
        metadata["description"],
        "Roll dice and report the total.\n\nFaces are uniform."
    );
    assert_eq!(metadata["title"], "Dice");
    assert_eq!(metadata["timeout_ms"], 5000);
    assert_eq!(by_macro.chat_scope, "group");
    // MaiBot's keys, as its `@Tool(platforms=..., stop_after_execution=True)` sends them; the
    // host normalises the names.
    assert_eq!(metadata["platforms"], json!(["telegram", "QQ"]));
    assert_eq!(metadata["stop_after_execution"], true);
    let parameters = &metadata["parameters_raw"];
    assert_eq!(parameters["required"], json!(["sides"]));
    assert_eq!(
        parameters["properties"]["sides"]["description"],
        "Sides of each die."
    );
    assert_eq!(
        parameters["properties"]["count"]["description"],
        "How many dice (default 1)."
    );
    assert_eq!(
        metadata["output_schema"]["properties"]["total"]["description"],
        "The sum of the faces."
    );
}

/// A tool collection with shared state, declared both ways.
#[derive(Default)]
struct Notes {
    prefix: String,
}

#[crate::tools]
impl Notes {
    /// Store a note.
    #[tool(deferred, enabled = false)]
    async fn remember(
        &self,
        ctx: ToolContext,
        #[args] args: RememberArgs,
    ) -> Result<String, ToolError> {
        Ok(format!(
            "{}{} in {}",
            self.prefix,
            args.key,
            ctx.stream_id()
        ))
    }

    /// Count the notes.
    #[tool(hidden, chat_scope = "private", platforms = "qq")]
    async fn count(&self) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(self.prefix.clone()))
    }
}

#[crate::args]
struct RememberArgs {
    /// The note's key.
    key: String,
}

#[crate::args]
struct NoArgs {}

#[test]
fn the_tools_macro_declares_each_method_as_the_builder_does() {
    let tools = Notes::default().into_tools();
    let by_builder = [
        Tool::new(
            "remember",
            "Store a note.",
            |_: RememberArgs, _: ToolContext| async move { Ok(ToolOutput::text("")) },
        )
        .visibility(Visibility::Deferred)
        .enabled(false),
        Tool::new(
            "count",
            "Count the notes.",
            |_: NoArgs, _: ToolContext| async move { Ok(ToolOutput::text("")) },
        )
        .visibility(Visibility::Hidden)
        .chat_scope(ChatScope::Private)
        .platforms(["qq"]),
    ];
    assert_eq!(tools.len(), by_builder.len());
    for (by_macro, by_builder) in tools.iter().zip(&by_builder) {
        assert_same(&by_macro.declaration("p"), &by_builder.declaration("p"));
    }
    let remember = tools[0].declaration("p");
    assert_eq!(remember.metadata["visibility"], "deferred");
    assert_eq!(remember.metadata["enabled"], false);
    assert_eq!(
        remember.metadata["parameters_raw"]["properties"]["key"]["description"],
        "The note's key."
    );
}

/// Doc comments on parameters (`///`) reach the macro, which moves them to the schema.
#[crate::tool]
async fn documented(
    /// The word.
    word: String,
) -> Result<String, ToolError> {
    Ok(word)
}

#[test]
fn doc_comments_on_parameters_become_argument_descriptions() {
    let declaration = documented_tool().declaration("p");
    assert_eq!(
        declaration.metadata["parameters_raw"]["properties"]["word"]["description"],
        "The word."
    );
}
