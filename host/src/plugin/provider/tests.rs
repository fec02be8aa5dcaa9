use maitool_protocol::wire::methods::InvokePayload;
use maitool_protocol::{ToolExecutionContext, ToolInvocation};
use serde_json::json;

use super::{ContextKeys, InvokeArgs, InvokeRequest};

#[test]
fn the_borrowed_request_decodes_as_an_invoke_payload() {
    let invocation =
        ToolInvocation::new("t", json!({"x": 1}).as_object().unwrap().clone()).with_call_id("c1");
    let ctx = ToolExecutionContext {
        session_id: "s".into(),
        is_group_chat: Some(true),
        ..Default::default()
    };
    let request = InvokeRequest {
        component_name: "t",
        args: InvokeArgs::new(&invocation.arguments, &ctx, "", false, ContextKeys::ALL),
        context: Some(&ctx),
        call_id: "c1",
    };
    let bytes = rmp_serde::to_vec_named(&request).unwrap();
    let decoded: InvokePayload = rmp_serde::from_slice(&bytes).unwrap();
    assert_eq!(decoded.component_name, "t");
    assert_eq!(decoded.args["x"], 1);
    assert_eq!(decoded.args["stream_id"], "s");
    assert_eq!(decoded.context, Some(ctx));
    assert_eq!(decoded.call_id, "c1");
}
