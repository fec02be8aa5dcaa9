//! Reading a tool's answer without serde's field-by-field machinery.
//!
//! Every plugin call ends with the host decoding an [`InvokeResultPayload`]. Through serde
//! that is about 2,000 instructions for an answer of a few dozen bytes: each key goes
//! through identifier matching and each marker through a reader. A maitool runner answers
//! in one shape (`{success, tool_result: {tool_name, success, content | error_message}}`),
//! and a MaiBot runner in another (`{success, result}`, where a tool's `result` is nearly
//! always a dict of a few scalars such as `{content: "..."}`, a `[bool, message]` pair or a
//! plain value); this walk reads both directly:
//!
//! ```text
//! map(2) "success" bool  "tool_result" map(n) "tool_name" str  "success" bool
//!                                             "content" str    "error_message" str
//! map(2) "success" bool  "result" scalar | map(n) of str -> scalar | array(n) of scalar
//!                        (scalar: nil, bool, int, float, str)
//! ```
//!
//! Anything else (a `result` nested deeper, `bin` or extension values, non-string keys,
//! structured content, content items, history messages, metadata, unknown keys, a key twice
//! at the payload's level, a field of the wrong type, trailing bytes) goes through the serde
//! decode, so what is accepted, and how, does not depend on which path read it.

use bytes::Bytes;
use serde_json::{Map, Number, Value};

use super::header_walk::{bool_value, set, str_value};
use super::methods::InvokeResultPayload;
use super::{PayloadAt, WireError, decode_header_located, decode_payload_at, skip};
use crate::model::ToolExecutionResult;

const NIL: u8 = 0xc0;

impl InvokeResultPayload {
    /// Decodes the payload of a whole frame (a response envelope) as a tool's answer: what
    /// `decode_envelope::<InvokeResultPayload>` gives for its payload, the same values and
    /// the same refusals, with the shape a maitool runner sends read directly.
    pub fn from_frame(frame: &Bytes) -> Result<InvokeResultPayload, WireError> {
        let (_, at) = decode_header_located(frame)?;
        InvokeResultPayload::at(frame, &at)
    }

    /// Decodes the payload at `at` of `frame`: the common shape directly, anything else
    /// through serde, with the same result either way.
    pub(crate) fn at(frame: &Bytes, at: &PayloadAt) -> Result<InvokeResultPayload, WireError> {
        let walked = match at {
            PayloadAt::Range(range) => walk(&frame[range.clone()]),
            PayloadAt::Absent | PayloadAt::Unknown => None,
        };
        match walked {
            Some(payload) => Ok(payload),
            None => decode_payload_at(frame, at),
        }
    }
}

/// Reads an answer in one of the common shapes, or `None` for the serde decode to judge.
pub(crate) fn walk(payload: &[u8]) -> Option<InvokeResultPayload> {
    let (mut success, mut tool_result, mut maibot_result) = (None, None, None);
    skip::each_entry(payload, |key, at| {
        let value = &payload[at];
        match key {
            b"success" => set(&mut success, bool_value(value)?),
            b"tool_result" if value == [NIL] => set(&mut tool_result, None),
            b"tool_result" => set(&mut tool_result, Some(result(value)?)),
            // `Option<Value>` reads nil as absent.
            b"result" if value == [NIL] => set(&mut maibot_result, None),
            b"result" => set(&mut maibot_result, Some(flat_value(value)?)),
            // A key this walk does not know: serde decides (and applies its nesting limit to
            // what it skips).
            _ => None,
        }
    })?;
    Some(InvokeResultPayload {
        success: success.unwrap_or_default(),
        result: maibot_result.flatten(),
        tool_result: tool_result.flatten(),
    })
}

/// A MaiBot-style `result` that is all of `value`: a scalar, or a map with `str` keys or an
/// array whose values are scalars; the [`Value`] serde would make of it (a key twice in the
/// map: the last value, as serde's map does), or `None` for anything else.
fn flat_value(bytes: &[u8]) -> Option<Value> {
    let value = bytes;
    let (decoded, end) = match skip::map_header(value) {
        Some((count, mut pos)) => {
            let mut map = Map::new();
            for _ in 0..count {
                let (key, at) = skip::str_at(value, pos)?;
                let key = std::str::from_utf8(key).ok()?;
                let (item, end) = scalar_at(value, at)?;
                map.insert(key.to_owned(), item);
                pos = end;
            }
            (Value::Object(map), pos)
        }
        None => match array_header(value) {
            Some((count, mut pos)) => {
                let mut items = Vec::with_capacity(count.min(16));
                for _ in 0..count {
                    let (item, end) = scalar_at(value, pos)?;
                    items.push(item);
                    pos = end;
                }
                (Value::Array(items), pos)
            }
            None => scalar_at(value, 0)?,
        },
    };
    (end == bytes.len()).then_some(decoded)
}

/// The header of an array (fixarray, `array 16`, `array 32`): its length and where its
/// items begin.
fn array_header(buf: &[u8]) -> Option<(usize, usize)> {
    let be = |width: usize| {
        let bytes = buf.get(1..1 + width)?;
        Some(bytes.iter().fold(0usize, |acc, &b| (acc << 8) | b as usize))
    };
    match *buf.first()? {
        marker @ 0x90..=0x9f => Some(((marker & 0x0f) as usize, 1)),
        0xdc => Some((be(2)?, 3)),
        0xdd => Some((be(4)?, 5)),
        _ => None,
    }
}

/// The scalar at `at` (nil, bool, integer, float or UTF-8 `str`) as serde's [`Value`]
/// visitor makes it, and the position after it; `None` for anything else.
fn scalar_at(buf: &[u8], at: usize) -> Option<(Value, usize)> {
    let marker = *buf.get(at)?;
    let bytes = |width: usize| buf.get(at + 1..at + 1 + width);
    let unsigned = |width: usize| {
        let value = bytes(width)?
            .iter()
            .fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
        Some((Value::Number(Number::from(value)), at + 1 + width))
    };
    let signed = |width: usize| {
        let raw = bytes(width)?
            .iter()
            .fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
        // Sign-extend the `width`-byte two's complement number.
        let shift = 64 - 8 * width as u32;
        let value = ((raw << shift) as i64) >> shift;
        Some((Value::Number(Number::from(value)), at + 1 + width))
    };
    // serde's visitor turns a float that is not finite into null.
    let float = |value: f64| Number::from_f64(value).map_or(Value::Null, Value::Number);
    match marker {
        0x00..=0x7f => Some((Value::Number(Number::from(marker)), at + 1)),
        0xe0..=0xff => Some((Value::Number(Number::from(marker as i8)), at + 1)),
        0xc0 => Some((Value::Null, at + 1)),
        0xc2 => Some((Value::Bool(false), at + 1)),
        0xc3 => Some((Value::Bool(true), at + 1)),
        0xcc => unsigned(1),
        0xcd => unsigned(2),
        0xce => unsigned(4),
        0xcf => unsigned(8),
        0xd0 => signed(1),
        0xd1 => signed(2),
        0xd2 => signed(4),
        0xd3 => signed(8),
        0xca => {
            let value = f32::from_be_bytes(bytes(4)?.try_into().ok()?);
            Some((float(f64::from(value)), at + 5))
        }
        0xcb => {
            let value = f64::from_be_bytes(bytes(8)?.try_into().ok()?);
            Some((float(value), at + 9))
        }
        0xa0..=0xbf | 0xd9..=0xdb => {
            let (text, end) = skip::str_at(buf, at)?;
            let text = std::str::from_utf8(text).ok()?;
            Some((Value::String(text.to_owned()), end))
        }
        _ => None,
    }
}

/// A [`ToolExecutionResult`] with text fields only.
fn result(value: &[u8]) -> Option<ToolExecutionResult> {
    let (mut tool_name, mut success, mut content, mut error_message) = (None, None, None, None);
    skip::each_entry(value, |key, at| {
        let field = &value[at];
        match key {
            b"tool_name" => set(&mut tool_name, str_value(field)?.to_owned()),
            b"success" => set(&mut success, bool_value(field)?),
            b"content" => set(&mut content, str_value(field)?.to_owned()),
            b"error_message" => set(&mut error_message, str_value(field)?.to_owned()),
            // Structured content, content items, history messages, metadata, unknown keys.
            _ => None,
        }
    })?;
    Some(ToolExecutionResult {
        tool_name: tool_name.unwrap_or_default(),
        success: success.unwrap_or_default(),
        content: content.unwrap_or_default(),
        error_message: error_message.unwrap_or_default(),
        ..ToolExecutionResult::default()
    })
}

#[cfg(test)]
mod tests;
