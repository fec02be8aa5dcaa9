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

/// Reads an answer in the common shape, or `None` for the serde decode to judge.
pub(crate) fn walk(payload: &[u8]) -> Option<InvokeResultPayload> {
    let (mut success, mut tool_result) = (None, None);
    skip::each_entry(payload, |key, at| {
        let value = &payload[at];
        match key {
            b"success" => set(&mut success, bool_value(value)?),
            b"tool_result" if value == [NIL] => set(&mut tool_result, None),
            b"tool_result" => set(&mut tool_result, Some(result(value)?)),
            // A MaiBot-style `result`, or a key this walk does not know: serde decides (and
            // applies its nesting limit to what it skips).
            _ => None,
        }
    })?;
    Some(InvokeResultPayload {
        success: success.unwrap_or_default(),
        result: None,
        tool_result: tool_result.flatten(),
    })
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
