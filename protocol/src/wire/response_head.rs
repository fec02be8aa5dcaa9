//! A response encoded up to its payload as soon as the request arrives.
//!
//! A request's answer repeats the request's protocol version, id, method, plugin id and
//! timeout. Encoding them when the request arrives, instead of keeping a copy of its header
//! until the handler is done, spares three string copies per request; the timestamp, which
//! must be the time of the answer, is written as a `uint 64` and set when the answer is.
//!
//! ```text
//! head, encoded when the request arrives:
//!   map(9) "protocol_version" str  "request_id" uint  "message_type" "response"
//!          "method" str  "plugin_id" str  "timestamp_ms" cf xx xx xx xx xx xx xx xx
//!          "timeout_ms" uint
//! written by `finish`, after the head (its timestamp set):
//!          "error" nil or error body  "payload" payload bytes
//! ```
//!
//! The payload is the last entry, so a receiver finds the header without walking the payload
//! (see `header_walk`).
//!
//! Unix milliseconds need 64 bits since 1970-02-19, so the fixed-width timestamp is also the
//! shortest encoding, and the result is byte-for-byte what `encode_envelope` would produce.
//!
//! Requests and broadcasts are written by the same code (`encode_outgoing`), straight from the
//! caller's borrowed names: building an `Envelope` first copied the protocol version, method
//! and plugin id into owned strings for every call.

use bytes::Bytes;
use std::cell::Cell;
use std::convert::Infallible;

use rmp::encode::buffer::ByteBuf;
use rmp::encode::{ValueWriteError, write_str, write_uint};

use super::envelope::{ENCODE_CAPACITY, EnvelopeHeader, MessageType, check_len, now_ms};
use super::{ErrorBody, WireError};

/// The MessagePack marker of a `uint 64`.
const UINT64: u8 = 0xcf;
/// The MessagePack encoding of nil.
const NIL: u8 = 0xc0;
/// `"error"` as a MessagePack string.
const ERROR_KEY: &[u8] = b"\xa5error";
/// `"payload"` as a MessagePack string.
const PAYLOAD_KEY: &[u8] = b"\xa7payload";

/// The encoded head of the response to one request.
#[derive(Debug)]
pub(crate) struct ResponseHead {
    buf: Vec<u8>,
    /// Where the 8 bytes of the timestamp start.
    timestamp_at: usize,
    method: std::ops::Range<usize>,
    request_id: u64,
}

impl ResponseHead {
    /// Encodes everything of the response to `request` up to its `error` entry.
    pub(crate) fn for_request(request: &EnvelopeHeader) -> ResponseHead {
        let mut buf = ByteBuf::with_capacity(
            128 + request.method.len() + request.plugin_id.len() + request.protocol_version.len(),
        );
        let fields = HeadFields {
            message_type: MessageType::Response,
            protocol_version: &request.protocol_version,
            request_id: request.request_id,
            method: &request.method,
            plugin_id: &request.plugin_id,
            timeout_ms: request.timeout_ms,
        };
        let (timestamp_at, method) = match write_head(&mut buf, &fields) {
            Ok(places) => places,
            // `ByteBuf` cannot fail to grow: its error type has no values.
            Err(
                ValueWriteError::InvalidMarkerWrite(never)
                | ValueWriteError::InvalidDataWrite(never),
            ) => match never {},
        };
        ResponseHead {
            buf: buf.into_vec(),
            timestamp_at,
            method,
            request_id: request.request_id,
        }
    }

    /// The request's method.
    pub(crate) fn method(&self) -> &str {
        std::str::from_utf8(&self.buf[self.method.clone()]).unwrap_or_default()
    }

    /// The request's id.
    pub(crate) fn request_id(&self) -> u64 {
        self.request_id
    }

    /// The whole response: this head, stamped with the current time, then `error` (nil, or
    /// the error body) and `payload` (already MessagePack).
    pub(crate) fn finish(
        &self,
        payload: &[u8],
        error: Option<&ErrorBody>,
    ) -> Result<Bytes, WireError> {
        let mut frame = Vec::with_capacity(
            self.buf.len() + ERROR_KEY.len() + 1 + PAYLOAD_KEY.len() + payload.len(),
        );
        frame.extend_from_slice(&self.buf);
        frame[self.timestamp_at..self.timestamp_at + 8].copy_from_slice(&now_ms().to_be_bytes());
        frame.extend_from_slice(ERROR_KEY);
        match error {
            None => frame.push(NIL),
            Some(body) => rmp_serde::encode::write_named(&mut frame, body)?,
        }
        frame.extend_from_slice(PAYLOAD_KEY);
        frame.extend_from_slice(payload);
        check_len(Bytes::from(frame))
    }
}

/// The envelope fields written before the error and the payload.
pub(crate) struct HeadFields<'a> {
    pub(crate) message_type: MessageType,
    pub(crate) protocol_version: &'a str,
    pub(crate) request_id: u64,
    pub(crate) method: &'a str,
    pub(crate) plugin_id: &'a str,
    pub(crate) timeout_ms: u64,
}

/// The envelope's keys before `error`, each with its `fixstr` marker: written as constants,
/// not through `write_str` (a length check and two pushes each, for every frame).
const HEAD_KEYS: [&[u8]; 7] = [
    b"\xb0protocol_version",
    b"\xaarequest_id",
    b"\xacmessage_type",
    b"\xa6method",
    b"\xa9plugin_id",
    b"\xactimestamp_ms",
    b"\xaatimeout_ms",
];
/// A `fixmap` of the envelope's nine entries.
const MAP_OF_NINE: u8 = 0x89;

/// Writes the envelope map up to its `error` entry, in the order of `Envelope`'s serde
/// encoding, its timestamp zeroed; returns where the timestamp's 8 bytes are and where the
/// method's text is.
fn write_head(
    buf: &mut ByteBuf,
    fields: &HeadFields<'_>,
) -> Result<(usize, std::ops::Range<usize>), ValueWriteError<Infallible>> {
    let [
        version_key,
        id_key,
        type_key,
        method_key,
        plugin_key,
        timestamp_key,
        timeout_key,
    ] = HEAD_KEYS;
    buf.as_mut_vec().push(MAP_OF_NINE);
    buf.as_mut_vec().extend_from_slice(version_key);
    write_str(buf, fields.protocol_version)?;
    buf.as_mut_vec().extend_from_slice(id_key);
    write_uint(buf, fields.request_id)?;
    buf.as_mut_vec().extend_from_slice(type_key);
    write_str(buf, fields.message_type.as_str())?;
    buf.as_mut_vec().extend_from_slice(method_key);
    write_str(buf, fields.method)?;
    let method = buf.as_slice().len() - fields.method.len()..buf.as_slice().len();
    buf.as_mut_vec().extend_from_slice(plugin_key);
    write_str(buf, fields.plugin_id)?;
    buf.as_mut_vec().extend_from_slice(timestamp_key);
    buf.as_mut_vec().push(UINT64);
    let timestamp_at = buf.as_slice().len();
    buf.as_mut_vec().extend_from_slice(&[0; 8]);
    buf.as_mut_vec().extend_from_slice(timeout_key);
    write_uint(buf, fields.timeout_ms)?;
    Ok((timestamp_at, method))
}

/// Encodes a request or broadcast around `payload`: byte for byte what [`encode_envelope`]
/// gives for the same [`Envelope`], without first copying the protocol version, method and
/// plugin id into the envelope's owned strings (three allocations and copies for every call).
///
/// [`encode_envelope`]: super::encode_envelope
/// [`Envelope`]: super::Envelope
pub(crate) fn encode_outgoing<P: serde::Serialize + ?Sized>(
    fields: &HeadFields<'_>,
    payload: &P,
) -> Result<Bytes, WireError> {
    let mut buf = ByteBuf::with_capacity(next_capacity());
    let timestamp_at = match write_head(&mut buf, fields) {
        Ok((timestamp_at, _)) => timestamp_at,
        Err(
            ValueWriteError::InvalidMarkerWrite(never) | ValueWriteError::InvalidDataWrite(never),
        ) => match never {},
    };
    let mut frame = buf.into_vec();
    frame[timestamp_at..timestamp_at + 8].copy_from_slice(&now_ms().to_be_bytes());
    frame.extend_from_slice(ERROR_KEY);
    frame.push(NIL);
    frame.extend_from_slice(PAYLOAD_KEY);
    rmp_serde::encode::write_named(&mut frame, payload)?;
    LAST_FRAME_LEN.set(frame.len());
    // `Bytes` takes a buffer without spare capacity as it is; one with spare capacity costs
    // an extra allocation for its reference count. Shrinking is cheaper, in place as a rule.
    check_len(Bytes::from(frame.into_boxed_slice()))
}

thread_local! {
    /// The length of the last frame `encode_outgoing` wrote on this thread.
    static LAST_FRAME_LEN: Cell<usize> = const { Cell::new(ENCODE_CAPACITY) };
}

/// The capacity to start the next outgoing frame with: half again the last frame's length.
///
/// A frame of about the last one's size then fills between half and all of its buffer, and
/// allocators shrink such a buffer in place (mimalloc only when at least half of it is used),
/// where a fixed, larger start would copy a typical request into a new block on every call.
fn next_capacity() -> usize {
    let last = LAST_FRAME_LEN.get();
    (last + last / 2).clamp(64, 64 * 1024)
}

#[cfg(test)]
mod tests;
