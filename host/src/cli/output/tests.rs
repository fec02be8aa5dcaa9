use maitool_protocol::ToolExecutionResult;

use super::failure_line;

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
