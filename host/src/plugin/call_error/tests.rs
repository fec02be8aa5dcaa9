use maitool_protocol::rpc::RpcError;
use maitool_protocol::wire::ErrorCode;

use super::{call_failure, duration};

#[test]
fn a_timeout_names_the_tool_once_and_no_rpc_method() {
    let err = RpcError::timeout("plugin.invoke_tool", 2000);
    let result = call_failure("radar", "examples.radar", &err, 2000);
    assert_eq!(result.error_message, "tool radar timed out after 2 s");
    assert_eq!(result.metadata["error_code"], "E_TIMEOUT");
    assert_eq!(result.metadata["plugin_id"], "examples.radar");
}

#[test]
fn a_cut_off_call_says_why_the_connection_went() {
    let err =
        RpcError::crashed("the runner was restarted because it stopped answering health checks");
    let result = call_failure("echo", "p", &err, 60_000);
    assert_eq!(
        result.error_message,
        "tool echo failed: the runner was restarted because it stopped answering health checks"
    );
    assert_eq!(result.metadata["error_code"], "E_PLUGIN_CRASHED");
    let other = call_failure("echo", "p", &RpcError::new(ErrorCode::BadPayload, "x"), 1);
    assert_eq!(other.error_message, "tool echo failed: [E_BAD_PAYLOAD] x");
}

#[test]
fn durations_read_as_people_write_them() {
    assert_eq!(duration(500), "500 ms");
    assert_eq!(duration(2000), "2 s");
    assert_eq!(duration(2500), "2.5 s");
    assert_eq!(duration(60_000), "60 s");
}
