use super::{AnswerError, HandshakeError};

#[test]
fn a_failed_answer_names_the_runner_and_keeps_the_io_error() {
    let err = HandshakeError::Answer {
        runner: "dice".into(),
        source: AnswerError::Send(std::io::Error::from(std::io::ErrorKind::BrokenPipe)),
    };
    assert_eq!(
        crate::error_text::chain(&err),
        format!(
            "runner dice: cannot answer the handshake: {}",
            std::io::Error::from(std::io::ErrorKind::BrokenPipe)
        )
    );
    let io = std::error::Error::source(&err)
        .and_then(std::error::Error::source)
        .and_then(|cause| cause.downcast_ref::<std::io::Error>())
        .expect("the io error is at the end of the chain");
    assert_eq!(io.kind(), std::io::ErrorKind::BrokenPipe);
}
