//! A value left encoded in a received frame, decoded only when, and into what, it is needed.

use std::fmt;
use std::ops::Range;

use bytes::Bytes;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{MAX_NESTING_DEPTH, WireError, from_slice_within, skip};

/// A MessagePack value inside a received frame, kept encoded.
///
/// A tool's arguments arrive as a map, and the tool wants them as its own typed struct.
/// Decoding them into a dynamic JSON map first and converting that map afterwards costs an
/// allocation per key and per string, twice over; an `EncodedValue` is decoded once, straight
/// into the type asked for. It shares the frame's reference-counted buffer, so keeping or
/// cloning it copies nothing.
///
/// Decoding keeps the frame's nesting limit ([`MAX_NESTING_DEPTH`]): a value cut out of a
/// frame gets the levels its place in the frame leaves it.
#[derive(Clone)]
pub struct EncodedValue {
    bytes: Bytes,
    range: Range<usize>,
    levels: usize,
}

impl EncodedValue {
    /// The value that `bytes` encodes, whole. It may nest [`MAX_NESTING_DEPTH`] levels.
    pub fn from_bytes(bytes: impl Into<Bytes>) -> EncodedValue {
        let bytes = bytes.into();
        let range = 0..bytes.len();
        EncodedValue {
            bytes,
            range,
            levels: MAX_NESTING_DEPTH,
        }
    }

    /// Encodes `value` (structs as maps with named fields, as on the wire).
    pub fn encode<T: Serialize + ?Sized>(value: &T) -> Result<EncodedValue, WireError> {
        Ok(EncodedValue::from_bytes(rmp_serde::to_vec_named(value)?))
    }

    /// The value at `range` of `frame`, which may nest `levels` levels.
    pub(crate) fn in_frame(frame: &Bytes, range: Range<usize>, levels: usize) -> EncodedValue {
        EncodedValue {
            bytes: frame.clone(),
            range,
            levels,
        }
    }

    /// The value's MessagePack bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[self.range.clone()]
    }

    /// Decodes the value as `T`.
    pub fn decode<T: DeserializeOwned>(&self) -> Result<T, WireError> {
        Ok(from_slice_within(self.as_bytes(), self.levels)?)
    }

    /// Decodes a map as `T` without the entries whose key `drop` selects. When no key is
    /// dropped the bytes are decoded in place; otherwise the kept entries are copied into a
    /// new map first (one buffer the size of the map). A value that is not a map with string keys is decoded
    /// whole, so serde reports what is wrong with it.
    pub fn decode_without<T: DeserializeOwned>(
        &self,
        drop: impl Fn(&str) -> bool,
    ) -> Result<T, WireError> {
        match self.filtered(drop) {
            Some((kept, start)) => Ok(from_slice_within(&kept[start..], self.levels)?),
            None => self.decode(),
        }
    }

    /// The string under `key`, when the value is a map with string keys and that entry holds a
    /// string; the first such entry if the key repeats.
    pub fn str_entry(&self, key: &str) -> Option<&str> {
        let bytes = self.as_bytes();
        let (count, mut pos) = skip::map_header(bytes)?;
        for _ in 0..count {
            let (entry_key, value_at) = skip::str_at(bytes, pos)?;
            let end = skip::skip(bytes, value_at)?;
            if entry_key == key.as_bytes() {
                let (text, text_end) = skip::str_at(bytes, value_at)?;
                return (text_end == end).then(|| std::str::from_utf8(text).ok())?;
            }
            pos = end;
        }
        None
    }

    /// The map without the entries `drop` selects, as a buffer and the offset its map starts
    /// at; `None` when nothing is dropped or the value cannot be walked as a map with string
    /// keys.
    ///
    /// One walk: nothing is allocated until the first dropped key, then the kept entries are
    /// copied behind room for the map header, whose size is known only once they are counted.
    fn filtered(&self, drop: impl Fn(&str) -> bool) -> Option<(Vec<u8>, usize)> {
        const HEADER_ROOM: usize = 5;
        let bytes = self.as_bytes();
        let (_, first) = skip::map_header(bytes)?;
        let mut kept: Option<Vec<u8>> = None;
        let mut kept_count = 0;
        let mut entry_start = first;
        skip::each_entry(bytes, |key, value| {
            let entry = entry_start..value.end;
            entry_start = value.end;
            if std::str::from_utf8(key).is_ok_and(&drop) {
                kept.get_or_insert_with(|| {
                    let mut buf = Vec::with_capacity(HEADER_ROOM + bytes.len());
                    buf.resize(HEADER_ROOM, 0);
                    buf.extend_from_slice(&bytes[first..entry.start]);
                    buf
                });
            } else {
                kept_count += 1;
                if let Some(buf) = &mut kept {
                    buf.extend_from_slice(&bytes[entry]);
                }
            }
            Some(())
        })?;
        let mut kept = kept?;
        let (header, header_len) = skip::map_header_bytes(kept_count);
        let start = HEADER_ROOM - header_len;
        kept[start..HEADER_ROOM].copy_from_slice(&header[..header_len]);
        Some((kept, start))
    }
}

impl Default for EncodedValue {
    /// An empty map.
    fn default() -> Self {
        EncodedValue::from_bytes(Bytes::from_static(&[super::EMPTY_MAP]))
    }
}

impl fmt::Debug for EncodedValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "EncodedValue({} bytes)", self.range.len())
    }
}

#[cfg(test)]
mod tests;
