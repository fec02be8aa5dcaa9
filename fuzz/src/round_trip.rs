//! The round-trip property: a value that decoded once must encode, decode again and encode
//! to the same bytes. Comparing encodings rather than values keeps the check exact for
//! floats (a decoded NaN is not equal to itself but encodes the same).

use std::any::type_name;

use serde::Serialize;
use serde::de::DeserializeOwned;

/// The two encodings a value travels in: MessagePack on the runner socket (named fields, as
/// the envelope encoder writes them) and JSON on the control socket, in MCP and in files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// MessagePack with named fields.
    MsgPack,
    /// JSON text.
    Json,
}

/// Encodes `value` in `format`; panics (a fuzz failure) if a decoded value cannot be encoded.
pub fn encode<T: Serialize>(format: Format, value: &T) -> Vec<u8> {
    let encoded = match format {
        Format::MsgPack => rmp_serde::to_vec_named(value).map_err(|err| err.to_string()),
        Format::Json => serde_json::to_vec(value).map_err(|err| err.to_string()),
    };
    encoded
        .unwrap_or_else(|err| panic!("{} does not encode as {format:?}: {err}", type_name::<T>()))
}

/// Decodes `bytes` as `T` in `format`.
pub fn decode<T: DeserializeOwned>(format: Format, bytes: &[u8]) -> Result<T, String> {
    match format {
        Format::MsgPack => rmp_serde::from_slice(bytes).map_err(|err| err.to_string()),
        Format::Json => serde_json::from_slice(bytes).map_err(|err| err.to_string()),
    }
}

/// Asserts that `value` survives encode → decode → encode unchanged, and returns its
/// encoding.
pub fn check<T: Serialize + DeserializeOwned>(format: Format, value: &T) -> Vec<u8> {
    let first = encode(format, value);
    let again: T = decode(format, &first).unwrap_or_else(|err| {
        panic!(
            "{} encoded as {format:?} does not decode again: {err}",
            type_name::<T>()
        )
    });
    let second = encode(format, &again);
    assert_eq!(
        first,
        second,
        "{} changed in a {format:?} round trip",
        type_name::<T>()
    );
    first
}
