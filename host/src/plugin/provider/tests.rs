use maitool_protocol::wire::methods::{ComponentDeclaration, InvokePayload};
use maitool_protocol::{ToolExecutionContext, ToolInvocation};
use serde_json::json;

use super::{ComponentEntry, ContextKeys, InvokeArgs, InvokeRequest};

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

/// The request for tool `t` (declaring no parameter) with the model's `{"x": 1}`, in a chat
/// with a session and a stream, to a runner that reads the context or not; decoded as the
/// runner would.
fn request_to_runner(reads_context: bool) -> InvokePayload {
    let decl = ComponentDeclaration {
        name: "t".into(),
        component_type: "TOOL".into(),
        ..Default::default()
    };
    let entry = ComponentEntry::from_declaration("p", &decl).unwrap();
    let invocation = ToolInvocation::new("t", json!({"x": 1}).as_object().unwrap().clone());
    let ctx = ToolExecutionContext {
        session_id: "s".into(),
        stream_id: "st".into(),
        ..Default::default()
    };
    let request = InvokeRequest::new(&entry, &invocation, &ctx, reads_context);
    rmp_serde::from_slice(&rmp_serde::to_vec_named(&request).unwrap()).unwrap()
}

#[test]
fn a_maibot_runner_gets_the_context_in_its_arguments_and_no_context_map() {
    let payload = request_to_runner(false);
    assert_eq!(
        payload.args,
        *json!({"x": 1, "stream_id": "st", "chat_id": "st"})
            .as_object()
            .unwrap()
    );
    assert_eq!(payload.context, None);
}

#[test]
fn a_runner_that_reads_the_context_gets_it_whole_and_only_declared_keys() {
    let payload = request_to_runner(true);
    assert_eq!(payload.args, *json!({"x": 1}).as_object().unwrap());
    let context = payload.context.expect("the context");
    assert_eq!(
        (context.session_id.as_str(), context.stream_id.as_str()),
        ("s", "st")
    );
}
