//! Reading an invocation request without decoding its arguments.

use std::ops::Range;

use bytes::Bytes;
use bytestring::ByteString;

use super::header_walk::{bool_value, set, shared_text, str_value};
use super::methods::InvokePayload;
use super::{
    EncodedValue, MAX_NESTING_DEPTH, PayloadAt, WireError, decode_header_located,
    decode_payload_at, from_slice_within, skip,
};
use crate::model::ToolExecutionContext;

/// A `plugin.invoke_tool` or `plugin.invoke_action` payload ([`InvokePayload`]) as a runner
/// reads it: the names and the context decoded, the arguments left encoded so that the tool
/// decodes them once, straight into its own argument type.
#[derive(Debug, Clone, Default)]
pub struct InvokeView {
    /// Component (tool) name within the plugin: a slice of the received frame, not a copy.
    pub component_name: ByteString,
    /// The arguments map, still encoded (an empty map when the payload has none).
    pub args: EncodedValue,
    /// The host's execution context, if it sent one.
    pub context: Option<ToolExecutionContext>,
    /// The model's tool-call id.
    pub call_id: String,
}

impl InvokeView {
    /// Reads the invocation request in a whole frame (an envelope whose payload is an
    /// [`InvokePayload`]).
    ///
    /// It accepts every frame that decodes as `Envelope<InvokePayload>`, with the same values.
    /// What is inside `args` is only checked when the arguments are decoded.
    pub fn from_frame(frame: &Bytes) -> Result<InvokeView, WireError> {
        let (_, at) = decode_header_located(frame)?;
        InvokeView::at(frame, &at)
    }

    /// Reads the payload at `at` of `frame`. Unusual encodings go through the full decode of
    /// [`InvokePayload`], so they are accepted or refused exactly as serde would.
    pub(crate) fn at(frame: &Bytes, at: &PayloadAt) -> Result<InvokeView, WireError> {
        let walked = match at {
            PayloadAt::Range(range) => walk(frame, range.clone()),
            PayloadAt::Absent => Some(InvokeView::default()),
            PayloadAt::Unknown => None,
        };
        match walked {
            Some(view) => Ok(view),
            None => InvokeView::from_payload(decode_payload_at::<InvokePayload>(frame, at)?),
        }
    }

    /// The view of a payload that was decoded in full, its arguments encoded again.
    pub fn from_payload(payload: InvokePayload) -> Result<InvokeView, WireError> {
        Ok(InvokeView {
            args: EncodedValue::encode(&payload.args)?,
            component_name: payload.component_name.into(),
            context: payload.context,
            call_id: payload.call_id,
        })
    }
}

/// Reads the payload at `range` of `frame` (one level below the envelope), or `None` when it
/// holds anything the serde decode of [`InvokePayload`] should judge: a key twice, a field of
/// the wrong type, a context that does not decode, trailing bytes. Unknown keys are skipped,
/// as serde skips them.
pub(crate) fn walk(frame: &Bytes, range: Range<usize>) -> Option<InvokeView> {
    let payload = &frame[range.clone()];
    if payload == [0xc0] {
        return Some(InvokeView::default());
    }
    let (mut component_name, mut args, mut context, mut call_id) = (None, None, None, None);
    skip::each_entry(payload, |key, at| {
        let value = &payload[at.clone()];
        match key {
            b"component_name" => {
                let at = range.start + at.start..range.start + at.end;
                set(&mut component_name, frame_text(frame, at)?)
            }
            b"call_id" => set(&mut call_id, str_value(value)?.to_owned()),
            b"args" if value == [0xc0] => set(&mut args, EncodedValue::default()),
            b"args" => {
                skip::map_header(value)?;
                let at = range.start + at.start..range.start + at.end;
                set(
                    &mut args,
                    EncodedValue::in_frame(frame, at, MAX_NESTING_DEPTH - 2),
                )
            }
            b"context" => {
                let decoded = match context_walk(value) {
                    Some(walked) => walked,
                    None => from_slice_within::<Option<ToolExecutionContext>>(
                        value,
                        MAX_NESTING_DEPTH - 2,
                    )
                    .ok()?,
                };
                set(&mut context, decoded)
            }
            _ => Some(()),
        }
    })?;
    Some(InvokeView {
        component_name: component_name.unwrap_or_default(),
        args: args.unwrap_or_default(),
        context: context.flatten(),
        call_id: call_id.unwrap_or_default(),
    })
}

/// The `str` that is exactly `frame[at]`, as a slice of the frame's buffer (an allocation and
/// a copy fewer for every call than an owned string).
fn frame_text(frame: &Bytes, at: Range<usize>) -> Option<ByteString> {
    let (text, end) = skip::str_at(frame, at.start)?;
    if end != at.end {
        return None;
    }
    shared_text(frame, end - text.len()..end)
}

/// Reads a context made of its text fields and `is_group_chat` (what a host sends on every
/// call), or `None` for the serde decode to judge: `metadata`, an unknown key, a key twice, a
/// value of another type. Serde's field-by-field decode of this map was a fifteenth of the
/// runner's instructions per call.
fn context_walk(value: &[u8]) -> Option<Option<ToolExecutionContext>> {
    if value == [0xc0] {
        return Some(None);
    }
    let mut text: [Option<String>; 6] = Default::default();
    let mut is_group_chat = None;
    skip::each_entry(value, |key, at| {
        let field = &value[at];
        let slot = match key {
            b"session_id" => 0,
            b"stream_id" => 1,
            b"reasoning" => 2,
            b"group_id" => 3,
            b"user_id" => 4,
            b"platform" => 5,
            b"is_group_chat" if field == [0xc0] => return set(&mut is_group_chat, None),
            b"is_group_chat" => return set(&mut is_group_chat, Some(bool_value(field)?)),
            _ => return None,
        };
        set(&mut text[slot], str_value(field)?.to_owned())
    })?;
    let [
        session_id,
        stream_id,
        reasoning,
        group_id,
        user_id,
        platform,
    ] = text.map(Option::unwrap_or_default);
    Some(Some(ToolExecutionContext {
        session_id,
        stream_id,
        reasoning,
        is_group_chat: is_group_chat.flatten(),
        group_id,
        user_id,
        platform,
        metadata: Default::default(),
    }))
}

#[cfg(test)]
mod tests;
