use maitool_protocol::rpc::Payload;
use maitool_protocol::wire::methods::InvokeResultPayload;
use maitool_protocol::{NamedResult, ToolExecutionResult};
use serde_json::json;

use super::ToolAnswer;

#[test]
fn the_answer_is_the_invoke_result_payload_of_the_named_result() {
    let unnamed = ToolExecutionResult {
        success: true,
        content: "hello".into(),
        structured_content: Some(json!({"n": 1})),
        ..ToolExecutionResult::default()
    };
    let failed = ToolExecutionResult::failure("echo", "boom");
    for result in [unnamed, failed] {
        let answer = ToolAnswer {
            success: result.success,
            tool_result: NamedResult {
                tool_name: "echo",
                result: &result,
            },
        };
        let reference = InvokeResultPayload {
            success: result.success,
            result: None,
            tool_result: Some(ToolExecutionResult {
                tool_name: "echo".into(),
                ..result.clone()
            }),
        };
        assert_eq!(
            Payload::encode(&answer).unwrap().as_bytes(),
            Payload::encode(&reference).unwrap().as_bytes()
        );
    }
}
