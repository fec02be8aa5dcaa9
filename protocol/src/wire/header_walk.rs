//! Decoding the envelope header in one walk over the frame, noting where the payload is.
//!
//! The header is what every frame is dispatched on, so it is decoded for every message in
//! both directions. The serde path (`decode_header_from`) needs the frame without its payload
//! (a copy) and builds a field map; this walk reads the few scalar fields straight from their
//! MessagePack markers and remembers the payload's byte range, so that decoding the payload
//! later does not walk the frame again.
//!
//! It only handles the frames every conforming sender produces: a map with string keys, the
//! envelope's own keys at most once each, strings as `str`, integers as unsigned integers.
//! Anything else (an unknown key, a `bin` string, a negative or float number, a duplicate,
//! trailing bytes, an unknown message type) returns `None` and the caller decodes the frame
//! with serde, which then accepts or rejects it with exactly the usual result. The fuzz target
//! `envelope` checks that both paths agree.
//!
//! One thing is left for later: a `payload` that is the last entry is not walked here, since
//! every use of the payload reads it anyway and skipping it first was, on the benchmark's
//! profile, a third of the walk. So a frame whose last entry is a malformed payload gets a
//! header here, and is refused when its payload is decoded (for a request, an `E_BAD_PAYLOAD`
//! answer that names the method) rather than when its header is.

use std::ops::Range;

use bytestring::ByteString;

use super::depth::from_slice_within;
use super::envelope::{EnvelopeHeader, MessageType, default_timeout_ms};
use super::{ErrorBody, MAX_NESTING_DEPTH, PROTOCOL_VERSION, skip};

/// Where the payload of a decoded frame is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PayloadAt {
    /// The byte range of the payload value. When the payload is the frame's last entry the
    /// range runs to the end of the frame unchecked, so it may hold a truncated value or
    /// bytes after the value: decoders of a payload treat it as they would the whole frame,
    /// which serde decodes up to the end of its value (trailing bytes ignored, a malformed
    /// value refused).
    Range(Range<usize>),
    /// The frame has no `payload` key.
    Absent,
    /// Not known: the header was decoded by serde; walk the frame to find it.
    Unknown,
}

/// The header and the payload's place, or `None` when the frame needs the serde decode.
///
/// A `payload` that is the map's last entry is not walked: its range runs to the end of the
/// frame, and whoever decodes the payload checks it (see [`PayloadAt::Range`]). Every maitool
/// peer writes the payload last, so the header of its frames costs only the header's bytes.
///
/// `text` makes a header string of the bytes at a range of `frame` (the inside of a `str`),
/// or `None` when they are not UTF-8: a slice sharing the received frame's buffer, or a copy.
pub(crate) fn walk(
    frame: &[u8],
    text: impl Fn(Range<usize>) -> Option<ByteString>,
) -> Option<(EnvelopeHeader, PayloadAt)> {
    let mut fields = Fields::default();
    let (count, mut pos) = skip::map_header(frame)?;
    for index in 0..count {
        let (key, at) = skip::str_at(frame, pos)?;
        // Each value is read by the reader of its type, which also finds its end: a generic
        // skip first and a typed read after it were a fifth of the walk.
        pos = match key {
            b"payload" if index + 1 == count => {
                set(&mut fields.payload, at..frame.len())?;
                frame.len()
            }
            b"protocol_version" => text_at(frame, at, &text, &mut fields.protocol_version)?,
            b"request_id" => uint_at(frame, at, &mut fields.request_id)?,
            b"message_type" => {
                let (value, end) = skip::str_at(frame, at)?;
                let value = std::str::from_utf8(value).ok()?;
                set(&mut fields.message_type, MessageType::from_wire(value)?)?;
                end
            }
            b"method" => text_at(frame, at, &text, &mut fields.method)?,
            b"plugin_id" => text_at(frame, at, &text, &mut fields.plugin_id)?,
            b"timestamp_ms" => uint_at(frame, at, &mut fields.timestamp_ms)?,
            b"timeout_ms" => uint_at(frame, at, &mut fields.timeout_ms)?,
            b"error" => {
                let end = skip::skip(frame, at)?;
                set(&mut fields.error, error(&frame[at..end])?)?;
                end
            }
            b"payload" => {
                let end = skip::skip(frame, at)?;
                set(&mut fields.payload, at..end)?;
                end
            }
            _ => return None,
        };
    }
    if pos != frame.len() {
        return None;
    }
    let header = EnvelopeHeader {
        protocol_version: fields
            .protocol_version
            .unwrap_or_else(|| ByteString::from_static(PROTOCOL_VERSION)),
        request_id: fields.request_id?,
        message_type: fields.message_type?,
        method: fields.method.unwrap_or_default(),
        plugin_id: fields.plugin_id.unwrap_or_default(),
        timestamp_ms: fields.timestamp_ms.unwrap_or(0),
        timeout_ms: fields.timeout_ms.unwrap_or_else(default_timeout_ms),
        error: fields.error.flatten(),
    };
    let payload = fields.payload.map_or(PayloadAt::Absent, PayloadAt::Range);
    Some((header, payload))
}

#[derive(Default)]
struct Fields {
    protocol_version: Option<ByteString>,
    request_id: Option<u64>,
    message_type: Option<MessageType>,
    method: Option<ByteString>,
    plugin_id: Option<ByteString>,
    timestamp_ms: Option<u64>,
    timeout_ms: Option<u64>,
    error: Option<Option<ErrorBody>>,
    payload: Option<Range<usize>>,
}

/// Fills a field seen for the first time; a second occurrence is serde's to report.
pub(crate) fn set<T>(slot: &mut Option<T>, value: T) -> Option<()> {
    if slot.is_some() {
        return None;
    }
    *slot = Some(value);
    Some(())
}

pub(crate) fn str_value(value: &[u8]) -> Option<&str> {
    let (bytes, end) = skip::str_at(value, 0)?;
    if end != value.len() {
        return None;
    }
    std::str::from_utf8(bytes).ok()
}

/// A MessagePack `true` or `false`, nothing else (serde refuses other markers for a `bool`).
pub(crate) fn bool_value(value: &[u8]) -> Option<bool> {
    match value {
        [0xc3] => Some(true),
        [0xc2] => Some(false),
        _ => None,
    }
}

/// Reads the `str` at `at` into `slot` through `text`; the position after it.
fn text_at(
    frame: &[u8],
    at: usize,
    text: &impl Fn(Range<usize>) -> Option<ByteString>,
    slot: &mut Option<ByteString>,
) -> Option<usize> {
    let (bytes, end) = skip::str_at(frame, at)?;
    set(slot, text(end - bytes.len()..end)?)?;
    Some(end)
}

/// Reads the unsigned integer (a positive fixint or `uint 8/16/32/64`) at `at` into `slot`;
/// the position after it.
fn uint_at(frame: &[u8], at: usize, slot: &mut Option<u64>) -> Option<usize> {
    let marker = *frame.get(at)?;
    let width = match marker {
        0x00..=0x7f => {
            set(slot, u64::from(marker))?;
            return Some(at + 1);
        }
        0xcc => 1,
        0xcd => 2,
        0xce => 4,
        0xcf => 8,
        _ => return None,
    };
    let bytes = frame.get(at + 1..at + 1 + width)?;
    set(
        slot,
        bytes.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b)),
    )?;
    Some(at + 1 + width)
}

/// A header string that shares `frame`'s buffer: a reference count instead of an allocation
/// and a copy. The protocol version, the same in nearly every frame, shares nothing.
pub(crate) fn shared_text(frame: &bytes::Bytes, range: Range<usize>) -> Option<ByteString> {
    let bytes = &frame[range.clone()];
    if bytes == PROTOCOL_VERSION.as_bytes() {
        return Some(ByteString::from_static(PROTOCOL_VERSION));
    }
    if bytes.is_empty() {
        return Some(ByteString::new());
    }
    ByteString::try_from(frame.slice(range)).ok()
}

/// A header string copied out of `frame`, for a frame that is not in a shared buffer.
pub(crate) fn copied_text(frame: &[u8], range: Range<usize>) -> Option<ByteString> {
    std::str::from_utf8(&frame[range])
        .ok()
        .map(ByteString::from)
}

/// `nil` or an error body. The body is decoded by serde, one level below the envelope.
fn error(value: &[u8]) -> Option<Option<ErrorBody>> {
    if value == [0xc0] {
        return Some(None);
    }
    from_slice_within::<Option<ErrorBody>>(value, MAX_NESTING_DEPTH - 1).ok()
}

#[cfg(test)]
mod tests;
