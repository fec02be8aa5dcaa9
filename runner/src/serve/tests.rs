use maitool_protocol::ToolExecutionResult;
use maitool_protocol::rpc::Payload;
use maitool_protocol::wire::methods::InvokeResultPayload;
use serde_json::json;

use super::requests::answer;

#[test]
fn the_answer_is_the_result_under_the_tools_name_unless_it_has_its_own() {
    let unnamed = ToolExecutionResult {
        success: true,
        content: "hello".into(),
        structured_content: Some(json!({"n": 1})),
        ..ToolExecutionResult::default()
    };
    let failed = ToolExecutionResult::failure("echo", "boom");
    // A handler's own name is kept; an unnamed result gets the tool's.
    let named = ToolExecutionResult {
        tool_name: "echo_v2".into(),
        ..unnamed.clone()
    };
    for result in [unnamed, failed, named] {
        let expected_name = if result.tool_name.is_empty() {
            "echo"
        } else {
            result.tool_name.as_str()
        };
        let reference = InvokeResultPayload {
            success: result.success,
            result: None,
            tool_result: Some(ToolExecutionResult {
                tool_name: expected_name.into(),
                ..result.clone()
            }),
        };
        assert_eq!(
            answer("echo", &result).unwrap().as_bytes(),
            Payload::encode(&reference).unwrap().as_bytes()
        );
    }
}
