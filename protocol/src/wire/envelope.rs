use std::borrow::Cow;
use std::time::{SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use bytestring::ByteString;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::depth::{from_slice, from_slice_within};
use super::header_walk::{self, PayloadAt};
use super::response_head::ResponseHead;
use super::{ErrorBody, MAX_FRAME_LEN, MAX_NESTING_DEPTH, PROTOCOL_VERSION, WireError, skip};

/// The kind of a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageType {
    /// Expects exactly one response with the same `request_id`.
    Request,
    /// Answers the request with the same `request_id`.
    Response,
    /// One-way; never answered.
    Broadcast,
}

impl MessageType {
    /// The wire string: `request`, `response` or `broadcast`.
    pub fn as_str(self) -> &'static str {
        match self {
            MessageType::Request => "request",
            MessageType::Response => "response",
            MessageType::Broadcast => "broadcast",
        }
    }

    pub(super) fn from_wire(text: &str) -> Option<MessageType> {
        match text {
            "request" => Some(MessageType::Request),
            "response" => Some(MessageType::Response),
            "broadcast" => Some(MessageType::Broadcast),
            _ => None,
        }
    }
}

/// The envelope of every frame, with MaiBot 1.0.0's field names and, but for the payload
/// moved after `error`, their order.
///
/// Encoded as a MessagePack map with string keys, so a Python `msgpack.unpackb` reads a dict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Envelope<P> {
    /// Wire protocol version of the sender, `"1.0.0"`.
    pub protocol_version: String,
    /// Per-sender monotonic id from 1; a response carries the id of its request.
    pub request_id: u64,
    /// Request, response or broadcast.
    pub message_type: MessageType,
    /// The RPC method, such as `plugin.invoke_tool`.
    pub method: String,
    /// The plugin the message concerns; may be empty.
    pub plugin_id: String,
    /// Sender's wall clock when the message was built, in Unix milliseconds.
    pub timestamp_ms: u64,
    /// The caller's deadline for a request, in milliseconds; 0 means none.
    pub timeout_ms: u64,
    /// Set on error responses only.
    pub error: Option<ErrorBody>,
    /// The method's payload, a map. Written last, so that a receiver reads the header
    /// without walking the payload.
    pub payload: P,
}

impl<P> Envelope<P> {
    /// A request with the current time.
    pub fn request(
        request_id: u64,
        method: impl Into<String>,
        plugin_id: impl Into<String>,
        timeout_ms: u64,
        payload: P,
    ) -> Self {
        Self::new(
            MessageType::Request,
            request_id,
            method,
            plugin_id,
            timeout_ms,
            payload,
        )
    }

    /// A broadcast with the current time.
    pub fn broadcast(
        request_id: u64,
        method: impl Into<String>,
        plugin_id: impl Into<String>,
        payload: P,
    ) -> Self {
        Self::new(
            MessageType::Broadcast,
            request_id,
            method,
            plugin_id,
            0,
            payload,
        )
    }

    /// The successful response to `request`: copies its protocol version, id, method and
    /// plugin id, as MaiBot's `make_response` does.
    pub fn response_to(request: &EnvelopeHeader, payload: P) -> Self {
        Self {
            protocol_version: request.protocol_version.to_string(),
            request_id: request.request_id,
            message_type: MessageType::Response,
            method: request.method.to_string(),
            plugin_id: request.plugin_id.to_string(),
            timestamp_ms: now_ms(),
            timeout_ms: request.timeout_ms,
            payload,
            error: None,
        }
    }

    fn new(
        message_type: MessageType,
        request_id: u64,
        method: impl Into<String>,
        plugin_id: impl Into<String>,
        timeout_ms: u64,
        payload: P,
    ) -> Self {
        Self {
            protocol_version: PROTOCOL_VERSION.to_owned(),
            request_id,
            message_type,
            method: method.into(),
            plugin_id: plugin_id.into(),
            timestamp_ms: now_ms(),
            timeout_ms,
            payload,
            error: None,
        }
    }
}

impl Envelope<EmptyPayload> {
    /// The error response to `request`: an empty payload and `error` set.
    pub fn error_response_to(request: &EnvelopeHeader, error: ErrorBody) -> Self {
        let mut envelope = Envelope::response_to(request, EmptyPayload {});
        envelope.error = Some(error);
        envelope
    }
}

/// An empty map payload, `{}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct EmptyPayload {}

/// Every envelope field but the payload: decoded first to dispatch a frame.
#[derive(Debug, Clone, PartialEq)]
pub struct EnvelopeHeader {
    /// See [`Envelope::protocol_version`]; `"1.0.0"` when absent.
    pub protocol_version: ByteString,
    /// See [`Envelope::request_id`]; required.
    pub request_id: u64,
    /// See [`Envelope::message_type`]; required.
    pub message_type: MessageType,
    /// See [`Envelope::method`]; empty when absent.
    pub method: ByteString,
    /// See [`Envelope::plugin_id`]; empty when absent.
    pub plugin_id: ByteString,
    /// See [`Envelope::timestamp_ms`]; 0 when absent.
    pub timestamp_ms: u64,
    /// See [`Envelope::timeout_ms`]; 30000 (MaiBot's default) when absent.
    pub timeout_ms: u64,
    /// See [`Envelope::error`].
    pub error: Option<ErrorBody>,
}

/// The header as it may arrive from any peer: MaiBot's defaults, the message type as a string so
/// an unknown one is reported as such rather than as a generic decode failure.
#[derive(Deserialize)]
struct RawHeader<'a> {
    #[serde(default = "default_protocol_version")]
    protocol_version: String,
    request_id: u64,
    #[serde(borrow)]
    message_type: Cow<'a, str>,
    #[serde(default)]
    method: String,
    #[serde(default)]
    plugin_id: String,
    #[serde(default)]
    timestamp_ms: u64,
    #[serde(default = "default_timeout_ms")]
    timeout_ms: u64,
    #[serde(default)]
    error: Option<ErrorBody>,
    // `payload` and any unknown keys are skipped by serde's IgnoredAny.
}

fn default_protocol_version() -> String {
    PROTOCOL_VERSION.to_owned()
}

/// MaiBot's `Envelope.timeout_ms` default.
pub(super) fn default_timeout_ms() -> u64 {
    30_000
}

/// Decodes the envelope of a frame without its payload. Its strings are copies; the RPC peer
/// decodes a received frame's header with strings that share the frame's buffer instead.
pub fn decode_header(frame: &[u8]) -> Result<EnvelopeHeader, WireError> {
    decode_header_copied(frame).map(|(header, _)| header)
}

/// Decodes the header and notes where the payload is, when that came for free. The header's
/// strings share `frame`'s buffer.
pub(crate) fn decode_header_located(
    frame: &Bytes,
) -> Result<(EnvelopeHeader, PayloadAt), WireError> {
    match header_walk::walk(frame, |range| header_walk::shared_text(frame, range)) {
        Some(decoded) => Ok(decoded),
        None => decode_header_by_serde(frame),
    }
}

/// [`decode_header_located`] for a frame in a buffer of its own: the strings are copied.
fn decode_header_copied(frame: &[u8]) -> Result<(EnvelopeHeader, PayloadAt), WireError> {
    match header_walk::walk(frame, |range| header_walk::copied_text(frame, range)) {
        Some(decoded) => Ok(decoded),
        None => decode_header_by_serde(frame),
    }
}

/// The header of a frame the walk does not handle, with serde's errors.
fn decode_header_by_serde(frame: &[u8]) -> Result<(EnvelopeHeader, PayloadAt), WireError> {
    // Decoding without the payload entry spares serde a walk through every payload string;
    // a frame the walk cannot handle is decoded whole, with the usual errors.
    let header = match skip::without_key(frame, "payload") {
        Some(header_only) => decode_header_from(&header_only),
        None => decode_header_from(frame),
    }?;
    Ok((header, PayloadAt::Unknown))
}

fn decode_header_from(frame: &[u8]) -> Result<EnvelopeHeader, WireError> {
    let raw: RawHeader = from_slice(frame)?;
    let message_type =
        MessageType::from_wire(&raw.message_type).ok_or_else(|| WireError::UnknownMessageType {
            request_id: raw.request_id,
            message_type: raw.message_type.clone().into_owned(),
        })?;
    Ok(EnvelopeHeader {
        protocol_version: raw.protocol_version.into(),
        request_id: raw.request_id,
        message_type,
        method: raw.method.into(),
        plugin_id: raw.plugin_id.into(),
        timestamp_ms: raw.timestamp_ms,
        timeout_ms: raw.timeout_ms,
        error: raw.error,
    })
}

/// The request id and message type of a frame whose full header does not decode, so that the
/// sender can still be answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecoveredId {
    /// The frame's `request_id`.
    pub request_id: u64,
    /// The frame's `message_type`, if it was a string.
    pub message_type: Option<String>,
}

/// Recovers the request id (and, if possible, the message type) of a frame that
/// [`decode_header`] rejects; `None` if the frame is not a map with an integer `request_id`.
pub fn recover_request_id(frame: &[u8]) -> Option<RecoveredId> {
    #[derive(Deserialize)]
    struct IdOnly {
        request_id: u64,
    }
    #[derive(Deserialize)]
    struct IdAndType {
        request_id: u64,
        message_type: String,
    }
    // The walk reads the two values alone, so a frame that fails elsewhere (nested too deep,
    // invalid UTF-8 under another key) can still be answered.
    if let Some(id_range) = skip::value_of(frame, "request_id") {
        let request_id = from_slice_within::<u64>(&frame[id_range?], 0).ok()?;
        let message_type = skip::value_of(frame, "message_type")
            .flatten()
            .and_then(|range| from_slice_within::<String>(&frame[range], 0).ok());
        return Some(RecoveredId {
            request_id,
            message_type,
        });
    }
    if let Ok(both) = from_slice::<IdAndType>(frame) {
        return Some(RecoveredId {
            request_id: both.request_id,
            message_type: Some(both.message_type),
        });
    }
    let id = from_slice::<IdOnly>(frame).ok()?;
    Some(RecoveredId {
        request_id: id.request_id,
        message_type: None,
    })
}

/// Decodes only the `payload` of a whole frame; every other key is skipped. A missing or nil
/// payload decodes as `T` from an empty map, which works for types whose fields all default.
pub fn decode_payload<T: DeserializeOwned>(frame: &[u8]) -> Result<T, WireError> {
    decode_payload_at(frame, &PayloadAt::Unknown)
}

/// [`decode_payload`] with the payload's place already known (from [`decode_header_located`]).
pub(crate) fn decode_payload_at<T: DeserializeOwned>(
    frame: &[u8],
    at: &PayloadAt,
) -> Result<T, WireError> {
    let known = match at {
        PayloadAt::Range(range) => Some(Some(range.clone())),
        PayloadAt::Absent => Some(None),
        // Decode only the payload's own bytes when the frame can be walked (see `skip`).
        PayloadAt::Unknown => skip::value_of(frame, "payload"),
    };
    if let Some(range) = known {
        let payload = match range {
            Some(range) => from_slice_within::<Option<T>>(&frame[range], MAX_NESTING_DEPTH - 1)?,
            None => None,
        };
        return match payload {
            Some(payload) => Ok(payload),
            None => Ok(rmp_serde::from_slice(&[EMPTY_MAP])?),
        };
    }
    #[derive(Deserialize)]
    #[serde(bound = "T: DeserializeOwned")]
    struct PayloadOnly<T> {
        payload: Option<T>,
    }
    let only: PayloadOnly<T> = from_slice(frame)?;
    match only.payload {
        Some(payload) => Ok(payload),
        None => Ok(rmp_serde::from_slice(&[EMPTY_MAP])?),
    }
}

/// Decodes a whole frame: its header, then its payload as `P`. The reference the faster
/// paths are checked against, by the tests and the `envelope` fuzz target.
#[cfg(any(test, feature = "fuzzing"))]
pub fn decode_envelope<P: DeserializeOwned>(frame: &[u8]) -> Result<Envelope<P>, WireError> {
    let (header, at) = decode_header_copied(frame)?;
    let payload = decode_payload_at(frame, &at)?;
    Ok(Envelope {
        protocol_version: header.protocol_version.into(),
        request_id: header.request_id,
        message_type: header.message_type,
        method: header.method.into(),
        plugin_id: header.plugin_id.into(),
        timestamp_ms: header.timestamp_ms,
        timeout_ms: header.timeout_ms,
        payload,
        error: header.error,
    })
}

/// The MessagePack encoding of an empty map (fixmap of length 0).
pub(crate) const EMPTY_MAP: u8 = 0x80;

/// The first allocation of [`encode_envelope`]'s buffer: a tool invocation with its execution
/// context is 300-400 bytes, so it encodes without growing the buffer (128 grew it twice per
/// call on the benchmark's profile).
pub(super) const ENCODE_CAPACITY: usize = 512;

/// Encodes an envelope as a frame body (without the length prefix), with named fields.
pub fn encode_envelope<P: Serialize>(envelope: &Envelope<P>) -> Result<Bytes, WireError> {
    let mut buf = Vec::with_capacity(ENCODE_CAPACITY);
    rmp_serde::encode::write_named(&mut buf, envelope)?;
    check_len(Bytes::from(buf))
}

/// Encodes a response to `request` around a payload that is already MessagePack, without
/// decoding it again. The result is byte-for-byte what [`encode_envelope`] would produce for
/// the same values (for any clock past 1970-02-19, when Unix milliseconds outgrew 32 bits).
pub fn encode_response_raw(
    request: &EnvelopeHeader,
    payload_msgpack: &[u8],
) -> Result<Bytes, WireError> {
    ResponseHead::for_request(request).finish(payload_msgpack, None)
}

pub(super) fn check_len(frame: Bytes) -> Result<Bytes, WireError> {
    if frame.len() > MAX_FRAME_LEN {
        return Err(WireError::FrameTooLarge {
            len: frame.len(),
            max: MAX_FRAME_LEN,
        });
    }
    Ok(frame)
}

/// The current wall clock in Unix milliseconds (0 if the clock is before 1970).
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| elapsed.as_millis() as u64)
        .unwrap_or(0)
}
