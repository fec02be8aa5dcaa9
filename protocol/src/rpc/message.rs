use std::borrow::Cow;
use std::time::Duration;

use bytes::Bytes;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::RpcError;
use crate::wire::methods::InvokeResultPayload;
use crate::wire::{self, EnvelopeHeader, InvokeView, PayloadAt};

/// The first allocation of [`Payload::encode`]'s buffer.
const ENCODE_CAPACITY: usize = 256;

/// A payload already encoded as MessagePack (named fields), returned by request handlers.
///
/// Encoding happens in the handler's task, so the connection's reader and writer never
/// serialize payloads themselves. The bytes are a plain buffer, not `Bytes`: they are only
/// copied into the response frame, and a `Bytes` made from a buffer with spare capacity
/// costs an allocation of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Payload(Cow<'static, [u8]>);

impl Payload {
    /// Encodes `value` as a MessagePack map with named fields.
    pub fn encode<T: Serialize + ?Sized>(value: &T) -> Result<Payload, RpcError> {
        // A tool result is a few hundred bytes: starting empty grew the buffer six times.
        let mut bytes = Vec::with_capacity(ENCODE_CAPACITY);
        rmp_serde::encode::write_named(&mut bytes, value)
            .map(|()| Payload(Cow::Owned(bytes)))
            .map_err(|err| RpcError::bad_payload(format!("cannot encode payload: {err}")))
    }

    /// The empty map `{}`.
    pub fn empty() -> Payload {
        Payload(Cow::Borrowed(&[0x80]))
    }

    /// The encoded bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// Decodes the payload as `T` (`E_BAD_PAYLOAD` on failure).
    pub fn decode<T: DeserializeOwned>(&self) -> Result<T, RpcError> {
        // A payload sits one level below the envelope.
        wire::from_slice_within(&self.0, wire::MAX_NESTING_DEPTH - 1)
            .map_err(|err| RpcError::bad_payload(format!("cannot decode payload: {err}")))
    }
}

/// A request, broadcast or response received from the peer: its decoded header and the whole
/// frame, from which the payload is decoded on demand.
#[derive(Debug, Clone)]
pub struct IncomingMessage {
    /// The envelope without its payload.
    pub header: EnvelopeHeader,
    /// The whole frame body (the envelope, payload included).
    pub frame: Bytes,
    /// Where the payload is in `frame`, if decoding the header found out.
    pub(super) payload_at: PayloadAt,
}

impl IncomingMessage {
    /// A received frame whose header was decoded, with where its payload is if known.
    pub(crate) fn new(header: EnvelopeHeader, frame: Bytes, payload_at: PayloadAt) -> Self {
        IncomingMessage {
            header,
            frame,
            payload_at,
        }
    }

    /// Decodes the payload as `T`; `E_BAD_PAYLOAD` naming the method and the decode error.
    pub fn payload<T: DeserializeOwned>(&self) -> Result<T, RpcError> {
        wire::decode_payload_at(&self.frame, &self.payload_at).map_err(|err| {
            RpcError::bad_payload(format!("bad payload for {}: {err}", self.header.method))
        })
    }

    /// Reads the payload as an invocation request ([`InvokeView`]), its arguments left
    /// encoded; `E_BAD_PAYLOAD` when it is not one. Unusual encodings go through the full
    /// decode of [`InvokePayload`](crate::wire::methods::InvokePayload), so they are accepted
    /// or refused exactly as by [`payload`](Self::payload).
    pub fn invoke_view(&self) -> Result<InvokeView, RpcError> {
        InvokeView::at(&self.frame, &self.payload_at).map_err(|err| {
            RpcError::bad_payload(format!("bad payload for {}: {err}", self.header.method))
        })
    }

    /// Reads the response to an invocation: the peer's error if it answered with one, else
    /// its payload as an [`InvokeResultPayload`], `E_BAD_PAYLOAD` "bad response payload for
    /// METHOD" when it is not one. What [`RpcPeer::call`](super::RpcPeer::call) returns for
    /// that type, but the shape a maitool runner answers with is read directly, without
    /// serde's per-field work (about a tenth of the host's instructions per call).
    pub fn invoke_answer(&self) -> Result<InvokeResultPayload, RpcError> {
        if let Some(error) = &self.header.error {
            return Err(RpcError::from_body(error.clone()));
        }
        InvokeResultPayload::at(&self.frame, &self.payload_at).map_err(|err| {
            RpcError::bad_payload(format!(
                "bad response payload for {}: {err}",
                self.header.method
            ))
        })
    }

    /// The method.
    pub fn method(&self) -> &str {
        &self.header.method
    }

    /// The plugin id stamped on the envelope.
    pub fn plugin_id(&self) -> &str {
        &self.header.plugin_id
    }

    /// The sender's request id.
    pub fn request_id(&self) -> u64 {
        self.header.request_id
    }

    /// The caller's deadline, if it set one (`timeout_ms` > 0).
    pub fn timeout(&self) -> Option<Duration> {
        (self.header.timeout_ms > 0).then(|| Duration::from_millis(self.header.timeout_ms))
    }
}
