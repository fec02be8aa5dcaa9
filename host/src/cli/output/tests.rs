use maitool_protocol::ToolExecutionResult;

use maitool_protocol::{ProviderType, ToolSpec};

use super::{failure_line, origin};

#[test]
fn a_failure_names_the_tool_exactly_once() {
    let host = ToolExecutionResult::failure("radar", "tool radar timed out after 2 s");
    assert_eq!(failure_line(&host), "tool radar timed out after 2 s");
    let plugin = ToolExecutionResult::failure("roll", "sides must be positive");
    assert_eq!(
        failure_line(&plugin),
        "tool roll failed: sides must be positive"
    );
    let mcp = ToolExecutionResult::failure("echo", "MCP tool 'echo' on server 's' failed: x");
    assert_eq!(
        failure_line(&mcp),
        "MCP tool 'echo' on server 's' failed: x"
    );
    // A longer name that merely contains the tool's name is not a mention.
    let other = ToolExecutionResult::failure("roll", "rolling failed");
    assert_eq!(failure_line(&other), "tool roll failed: rolling failed");
    assert_eq!(
        failure_line(&ToolExecutionResult::failure("t", "")),
        "tool t failed"
    );
}

#[test]
fn the_origin_names_the_source_and_a_rename() {
    let plugin = ToolSpec::new("roll", "d")
        .with_provider("plugin_runtime", ProviderType::Plugin)
        .with_metadata("plugin_id", "examples.dice");
    assert_eq!(origin(&plugin), "examples.dice");
    let renamed = ToolSpec::new("plugin_examples_dice_reply", "d")
        .with_provider("plugin_runtime", ProviderType::Plugin)
        .with_metadata("plugin_id", "examples.dice")
        .with_metadata("registry_original_name", "reply");
    assert_eq!(origin(&renamed), "examples.dice (renamed from reply)");
    let mcp = ToolSpec::new("echo", "d")
        .with_provider("mcp", ProviderType::Mcp)
        .with_metadata("server_name", "example");
    assert_eq!(origin(&mcp), "example");
    let builtin = ToolSpec::new("wait", "d").with_provider("builtin", ProviderType::Builtin);
    assert_eq!(origin(&builtin), "builtin");
}
