//! Reading a tool's answer without serde's field-by-field machinery.
//!
//! Every plugin call ends with the host decoding an [`InvokeResultPayload`]. Through serde
//! that is about 2,000 instructions for an answer of a few dozen bytes: each key goes
//! through identifier matching and each marker through a reader. A maitool runner answers
//! in one shape (`{success, tool_result: {tool_name, success, content | error_message}}`),
//! which this walk reads directly:
//!
//! ```text
//! map(2) "success" bool  "tool_result" map(n) "tool_name" str  "success" bool
//!                                             "content" str    "error_message" str
//! ```
//!
//! Anything else (a MaiBot-style `result`, structured content, content items, history
//! messages, metadata, unknown keys, a key twice, a field of the wrong type, trailing bytes)
//! goes through the serde decode, so what is accepted, and how, does not depend on which path
//! read it.

use bytes::Bytes;

use super::header_walk::{set, str_value};
use super::methods::InvokeResultPayload;
use super::{PayloadAt, WireError, decode_header_located, decode_payload_at, skip};
use crate::model::ToolExecutionResult;

const NIL: u8 = 0xc0;
const FALSE: u8 = 0xc2;
const TRUE: u8 = 0xc3;

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

/// Reads an answer in the common shape, or `None` for the serde decode to judge.
pub(crate) fn walk(payload: &[u8]) -> Option<InvokeResultPayload> {
    let (count, mut pos) = skip::map_header(payload)?;
    let (mut success, mut tool_result) = (None, None);
    for _ in 0..count {
        let (key, value_at) = skip::str_at(payload, pos)?;
        let end = skip::skip(payload, value_at)?;
        let value = &payload[value_at..end];
        match key {
            b"success" => set(&mut success, boolean(value)?)?,
            b"tool_result" if value == [NIL] => set(&mut tool_result, None)?,
            b"tool_result" => set(&mut tool_result, Some(result(value)?))?,
            // A MaiBot-style `result`, or a key this walk does not know: serde decides (and
            // applies its nesting limit to what it skips).
            _ => return None,
        }
        pos = end;
    }
    (pos == payload.len()).then(|| InvokeResultPayload {
        success: success.unwrap_or_default(),
        result: None,
        tool_result: tool_result.flatten(),
    })
}

/// A [`ToolExecutionResult`] with text fields only.
fn result(value: &[u8]) -> Option<ToolExecutionResult> {
    let (count, mut pos) = skip::map_header(value)?;
    let (mut tool_name, mut success, mut content, mut error_message) = (None, None, None, None);
    for _ in 0..count {
        let (key, field_at) = skip::str_at(value, pos)?;
        let end = skip::skip(value, field_at)?;
        let field = &value[field_at..end];
        match key {
            b"tool_name" => set(&mut tool_name, str_value(field)?.to_owned())?,
            b"success" => set(&mut success, boolean(field)?)?,
            b"content" => set(&mut content, str_value(field)?.to_owned())?,
            b"error_message" => set(&mut error_message, str_value(field)?.to_owned())?,
            // Structured content, content items, history messages, metadata, unknown keys.
            _ => return None,
        }
        pos = end;
    }
    (pos == value.len()).then(|| ToolExecutionResult {
        tool_name: tool_name.unwrap_or_default(),
        success: success.unwrap_or_default(),
        content: content.unwrap_or_default(),
        error_message: error_message.unwrap_or_default(),
        ..ToolExecutionResult::default()
    })
}

fn boolean(value: &[u8]) -> Option<bool> {
    match value {
        [TRUE] => Some(true),
        [FALSE] => Some(false),
        _ => None,
    }
}

#[cfg(test)]
#[path = "result_walk_tests.rs"]
mod tests;
