//! Decoding with a nesting limit.
//!
//! serde decodes nested values by recursion, several stack frames per level. rmp-serde stops
//! at 1024 levels, but a debug build overflows a 2 MiB thread stack (Tokio's default) near 600
//! levels of `serde_json::Value`: a frame of 100 000 nested arrays, 100 kB and well under the
//! frame limit, would abort the whole process. Every decode of peer bytes therefore goes
//! through here, with [`MAX_NESTING_DEPTH`] levels at most.

use serde::Deserialize;

use rmp_serde::decode::Error;

use super::MAX_NESTING_DEPTH;

/// Decodes `bytes` (a whole frame) as `T`, refusing values nested deeper than
/// [`MAX_NESTING_DEPTH`] with rmp-serde's `DepthLimitExceeded`.
pub(crate) fn from_slice<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Result<T, Error> {
    from_slice_within(bytes, MAX_NESTING_DEPTH)
}

/// Decodes `bytes` as `T`, allowing `levels` nested maps, arrays and extension values. A value
/// cut out of a frame is one level below the envelope, so it gets one level less.
pub(crate) fn from_slice_within<'a, T: Deserialize<'a>>(
    bytes: &'a [u8],
    levels: usize,
) -> Result<T, Error> {
    let mut deserializer = rmp_serde::Deserializer::from_read_ref(bytes);
    // rmp-serde refuses a container once its counter reaches zero, so `levels` containers
    // need a counter of one more.
    deserializer.set_max_depth(levels + 1);
    T::deserialize(&mut deserializer)
}

#[cfg(test)]
mod tests;
