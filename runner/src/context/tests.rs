use maitool_protocol::ToolExecutionContext;

use super::chat_id_of;

fn execution(session_id: &str, stream_id: &str) -> ToolExecutionContext {
    ToolExecutionContext {
        session_id: session_id.into(),
        stream_id: stream_id.into(),
        ..ToolExecutionContext::default()
    }
}

#[test]
fn the_chat_id_argument_wins_then_the_stream_then_the_session() {
    assert_eq!(chat_id_of(Some("c9"), &execution("s1", "st1")), "c9");
    assert_eq!(chat_id_of(None, &execution("s1", "st1")), "st1");
    assert_eq!(chat_id_of(Some(""), &execution("s1", "st1")), "st1");
    assert_eq!(chat_id_of(None, &execution("s1", "")), "s1");
    assert_eq!(chat_id_of(None, &execution("", "")), "");
}
