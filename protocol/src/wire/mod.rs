//! Frame codec, envelope and typed payloads: the bytes on the wire, without I/O.
//!
//! A frame is a 4-byte big-endian length and a MessagePack map, the [`Envelope`], whose field
//! names are MaiBot's protocol 1.0.0 so a runner written in another language (MaiBot's Python
//! runner included) can speak it. Receivers decode the [`EnvelopeHeader`] first, skipping the
//! payload, dispatch on it, and decode the payload lazily into the type the method expects
//! ([`decode_payload`]): no intermediate dynamic value. `docs/PROTOCOL.md` is the full
//! specification.

mod codec;
mod depth;
mod encoded;
mod envelope;
mod error;
mod error_code;
mod header_walk;
mod invoke_view;
pub mod message_flow;
pub mod methods;
mod response_head;
mod result_walk;
mod skip;

#[cfg(test)]
pub(crate) mod test_frames;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

/// The string type of [`EnvelopeHeader`]'s text fields: a `str` whose bytes may share the
/// received frame's buffer, so that decoding a header allocates nothing.
pub use bytestring::ByteString;
pub use codec::{FrameDecoder, frame_codec};
pub(crate) use depth::from_slice_within;
pub use encoded::EncodedValue;
pub(crate) use envelope::{EMPTY_MAP, decode_header_located, decode_payload_at};
pub use envelope::{
    EmptyPayload, Envelope, EnvelopeHeader, MessageType, decode_header, decode_payload,
    encode_envelope, encode_response_raw, now_ms,
};
// The whole-frame reference decoder and the id recovery of a broken frame are the fuzz
// targets' way in, not API: peers decode through `RpcPeer`. Feature `fuzzing` exports them.
#[cfg(all(test, not(feature = "fuzzing")))]
pub(crate) use envelope::RecoveredId;
#[cfg(all(test, not(feature = "fuzzing")))]
pub(crate) use envelope::decode_envelope;
#[cfg(not(feature = "fuzzing"))]
pub(crate) use envelope::recover_request_id;
#[doc(hidden)]
#[cfg(feature = "fuzzing")]
pub use envelope::{RecoveredId, decode_envelope, recover_request_id};
pub use error::WireError;
pub use error_code::{ErrorBody, ErrorCode};
pub(crate) use header_walk::PayloadAt;
pub use invoke_view::InvokeView;
pub(crate) use response_head::{HeadFields, ResponseHead, encode_outgoing};

/// The wire protocol version, independent of the crate version.
pub const PROTOCOL_VERSION: &str = "1.0.0";

/// Every wire protocol version this build can speak.
pub const SUPPORTED_PROTOCOL_VERSIONS: &[&str] = &["1.0.0"];

/// The largest frame body (without its 4-byte length prefix), 16 MiB, enforced on send and on
/// receive.
pub const MAX_FRAME_LEN: usize = 16 * 1024 * 1024;

/// How deeply maps, arrays and extension values may nest in a frame, the envelope map
/// counting as the first level. Deeper frames are refused with `depth limit exceeded` before
/// the decoder's recursion can exhaust the stack.
pub const MAX_NESTING_DEPTH: usize = 128;

/// The method of the cancel message: a broadcast whose [`CancelPayload`] names a request the
/// sender no longer waits for.
pub const CANCEL_METHOD: &str = "rpc.cancel";

/// The payload of the cancel message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CancelPayload {
    /// The `request_id` of the abandoned request (an id of the cancel message's sender).
    pub request_id: u64,
}
