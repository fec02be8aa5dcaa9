//! The first frame of every runner connection, whether a child runner on the host's Unix
//! socket or a pool member over TCP: it must be a `runner.hello` request. Reading it, the
//! answers to a first frame that is not one, and the choice of protocol version are the same
//! on both paths; what a hello must then prove (a launch's session token, a pool's token)
//! differs, and stays with each listener.

use std::time::Duration;

use bytes::Bytes;
use futures::{SinkExt, StreamExt};
use maitool_protocol::wire::methods::{HelloPayload, names};
use maitool_protocol::wire::{
    Envelope, EnvelopeHeader, ErrorBody, ErrorCode, FrameDecoder, MessageType,
    SUPPORTED_PROTOCOL_VERSIONS, WireError, decode_header, decode_payload, encode_envelope,
    frame_codec,
};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::codec::{Framed, LengthDelimitedCodec};

/// Why a connection's first frame is not an acceptable `runner.hello`.
#[derive(Debug, thiserror::Error)]
pub(crate) enum HelloError {
    #[error("no runner.hello within {} ms", .0.as_millis())]
    NoHello(Duration),
    #[error("connection closed before runner.hello")]
    Closed,
    #[error("unreadable first frame")]
    Unreadable(#[source] WireError),
    #[error("first frame is not an envelope")]
    NotAnEnvelope(#[source] WireError),
    #[error("first message must be a runner.hello request, got {method} {message_type:?}")]
    NotHello {
        method: String,
        message_type: MessageType,
    },
    #[error("malformed runner.hello")]
    MalformedHello(#[source] WireError),
}

/// Why an answer could not be sent on a runner's connection.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AnswerError {
    #[error(transparent)]
    Encode(#[from] WireError),
    #[error("cannot answer the handshake")]
    Send(#[source] std::io::Error),
}

/// A connection whose first frame was a well-formed `runner.hello` request.
pub(crate) struct Hello<T> {
    pub framed: Framed<T, LengthDelimitedCodec>,
    /// The request's header, which every answer to it names.
    pub header: EnvelopeHeader,
    pub payload: HelloPayload,
}

/// Reads the first frame within `limit`. A frame with an envelope that is not a `runner.hello`
/// request, or one whose payload does not decode, is answered with an error envelope (the
/// runner logs it) before the error is returned; a frame without an envelope has no request
/// id to answer, so the connection is only dropped.
pub(crate) async fn read_hello<T: AsyncRead + AsyncWrite + Unpin>(
    framed: Framed<T, LengthDelimitedCodec>,
    limit: Duration,
) -> Result<Hello<T>, HelloError> {
    // Read through `FrameDecoder` for its errors: tokio-util's own say "frame size too big"
    // and "bytes remaining on stream", not how big or how much.
    let mut reading = framed.map_codec(FrameDecoder::from_codec);
    let first = match tokio::time::timeout(limit, reading.next()).await {
        Err(_) => return Err(HelloError::NoHello(limit)),
        Ok(None) => return Err(HelloError::Closed),
        Ok(Some(Err(err))) => return Err(HelloError::Unreadable(err)),
        Ok(Some(Ok(frame))) => frame.freeze(),
    };
    // Between two frames the codec holds no state, so a fresh one continues the stream.
    let mut framed = reading.map_codec(|_| frame_codec());
    let header = decode_header(&first).map_err(HelloError::NotAnEnvelope)?;
    if header.message_type != MessageType::Request || header.method != names::HELLO {
        let refused = HelloError::NotHello {
            method: header.method.to_string(),
            message_type: header.message_type,
        };
        let reason = refused.to_string();
        send_error(&mut framed, &header, ErrorCode::ProtocolMismatch, &reason).await;
        return Err(refused);
    }
    match decode_payload(&first) {
        Ok(payload) => Ok(Hello {
            framed,
            header,
            payload,
        }),
        Err(err) => {
            let refused = HelloError::MalformedHello(err);
            let reason = crate::error_text::chain(&refused);
            send_error(&mut framed, &header, ErrorCode::BadPayload, &reason).await;
            Err(refused)
        }
    }
}

/// The first of `hello`'s protocol versions this host speaks, or every version it offered
/// (a hello that names none speaks 1.0.0, the version before the field existed).
pub(crate) fn chosen_version(hello: &HelloPayload) -> Result<String, Vec<String>> {
    let offered = if hello.protocol_versions.is_empty() {
        vec!["1.0.0".to_owned()]
    } else {
        hello.protocol_versions.clone()
    };
    offered
        .iter()
        .find(|v| SUPPORTED_PROTOCOL_VERSIONS.contains(&v.as_str()))
        .cloned()
        .ok_or(offered)
}

/// Sends `envelope` on `framed`.
pub(crate) async fn send<T: AsyncRead + AsyncWrite + Unpin, P: serde::Serialize>(
    framed: &mut Framed<T, LengthDelimitedCodec>,
    envelope: &Envelope<P>,
) -> Result<(), AnswerError> {
    let bytes: Bytes = encode_envelope(envelope)?;
    framed.send(bytes).await.map_err(AnswerError::Send)
}

/// Answers the request `header` names with an error; a runner gone already is not told.
async fn send_error<T: AsyncRead + AsyncWrite + Unpin>(
    framed: &mut Framed<T, LengthDelimitedCodec>,
    header: &EnvelopeHeader,
    code: ErrorCode,
    reason: &str,
) {
    let _ = send(
        framed,
        &Envelope::error_response_to(header, ErrorBody::new(code, reason)),
    )
    .await;
}
