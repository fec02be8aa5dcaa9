//! Struct serialization that leaves default-valued fields out of binary formats.
//!
//! Every payload map on the wire treats a missing key as its default (docs/PROTOCOL.md), so a
//! MessagePack encoder need not spell out empty strings, `nil` options and empty maps. The
//! execution context and the result travel with every call, and most of their fields are
//! usually empty: leaving those out makes both frames shorter and both sides' work smaller.
//! Human-readable formats (JSON for operators and the control API) keep every field.

/// Serializes `$value`'s fields in order, each one only when its condition holds or the
/// format is human readable. The map's length is counted before it is started, as MessagePack
/// writes it first.
macro_rules! serialize_compact {
    ($serializer:expr, $name:literal, $value:expr, { $($field:ident: $present:expr),* $(,)? }) => {{
        use serde::ser::SerializeStruct as _;
        let serializer = $serializer;
        let value = $value;
        let full = serde::Serializer::is_human_readable(&serializer);
        let len = 0 $(+ usize::from(full || $present))*;
        let mut state = serde::Serializer::serialize_struct(serializer, $name, len)?;
        $(
            if full || $present {
                state.serialize_field(stringify!($field), &value.$field)?;
            }
        )*
        state.end()
    }};
}

pub(crate) use serialize_compact;
