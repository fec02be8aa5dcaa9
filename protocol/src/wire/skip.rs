//! Walking a frame's top-level map without decoding it: where each value starts and ends.
//!
//! Decoding the header through serde skips the payload with `IgnoredAny`, which still
//! decodes every string in it (UTF-8 validation included), and decoding the payload skips
//! the header the same way, so a frame decoded in two steps is parsed twice over. Skipping a
//! MessagePack value only needs its markers and lengths; with the payload's byte range
//! known, the header is decoded from the frame minus the payload and the payload from its
//! own bytes. Anything this walk does not understand (a frame that is not a map with string
//! keys, a truncated value, a duplicate key) makes the callers fall back to the full serde
//! decode, so errors are reported exactly as serde reports them. Bytes after the map are
//! ignored, as serde ignores them.

use std::ops::Range;

/// One top-level entry: the byte range of the whole entry (key and value) and of the value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry<'a> {
    pub key: &'a [u8],
    pub entry: Range<usize>,
    pub value: Range<usize>,
}

/// The top-level entries of a frame that is a map with string keys, and where the entries
/// begin (after the map header); `None` for anything else. Bytes after the map are ignored,
/// as serde's decode of the frame ignores them (PROTOCOL.md): refusing them here would send
/// the frame to that decode, which reads the whole payload and may stop at the depth limit.
pub(crate) fn top_level_entries(frame: &[u8]) -> Option<(usize, Vec<Entry<'_>>)> {
    let (count, mut pos) = map_header(frame)?;
    let first = pos;
    let mut entries = Vec::with_capacity(count.min(16));
    for _ in 0..count {
        let start = pos;
        let (key, after_key) = str_at(frame, pos)?;
        let end = skip(frame, after_key)?;
        entries.push(Entry {
            key,
            entry: start..end,
            value: after_key..end,
        });
        pos = end;
    }
    Some((first, entries))
}

/// The byte range of the value under `key` in a well-formed frame; `None` when the frame
/// cannot be walked or holds the key more than once. `Some(None)`: the key is absent.
pub(crate) fn value_of(frame: &[u8], key: &str) -> Option<Option<Range<usize>>> {
    let (_, entries) = top_level_entries(frame)?;
    let mut found = None;
    for entry in entries.iter().filter(|entry| entry.key == key.as_bytes()) {
        if found.is_some() {
            return None;
        }
        found = Some(entry.value.clone());
    }
    Some(found)
}

/// A copy of `frame`'s map without the entry under `key`: `None` when the frame cannot be
/// walked, the key is absent or appears more than once (nothing to gain, or ambiguous).
pub(crate) fn without_key(frame: &[u8], key: &str) -> Option<Vec<u8>> {
    let (first, entries) = top_level_entries(frame)?;
    let mut matching = entries.iter().filter(|entry| entry.key == key.as_bytes());
    let removed = matching.next()?;
    if matching.next().is_some() {
        return None;
    }
    let map_end = entries.last().map_or(first, |last| last.entry.end);
    let mut out = Vec::with_capacity(map_end);
    write_map_header(&mut out, entries.len() - 1);
    out.extend_from_slice(&frame[first..removed.entry.start]);
    out.extend_from_slice(&frame[removed.entry.end..map_end]);
    Some(out)
}

pub(crate) fn write_map_header(out: &mut Vec<u8>, len: usize) {
    let (header, header_len) = map_header_bytes(len);
    out.extend_from_slice(&header[..header_len]);
}

/// The header of a map of `len` entries: its bytes (the first of the five) and its length.
pub(crate) fn map_header_bytes(len: usize) -> ([u8; 5], usize) {
    let mut header = [0; 5];
    match len {
        0..=15 => {
            header[0] = 0x80 | len as u8;
            (header, 1)
        }
        16..=0xffff => {
            header[0] = 0xde;
            header[1..3].copy_from_slice(&(len as u16).to_be_bytes());
            (header, 3)
        }
        _ => {
            header[0] = 0xdf;
            header[1..5].copy_from_slice(&(len as u32).to_be_bytes());
            (header, 5)
        }
    }
}

pub(crate) fn map_header(buf: &[u8]) -> Option<(usize, usize)> {
    match *buf.first()? {
        marker @ 0x80..=0x8f => Some(((marker & 0x0f) as usize, 1)),
        0xde => Some((be(buf, 1, 2)?, 3)),
        0xdf => Some((be(buf, 1, 4)?, 5)),
        _ => None,
    }
}

/// Walks the map that is all of `buf`, calling `visit` with each key and the byte range of its
/// value. `None` when the map is malformed, a key is not a `str`, bytes follow the map, or
/// `visit` returns `None` (a walk's way of leaving the frame to serde).
pub(crate) fn each_entry(
    buf: &[u8],
    mut visit: impl FnMut(&[u8], Range<usize>) -> Option<()>,
) -> Option<()> {
    let (count, mut pos) = map_header(buf)?;
    for _ in 0..count {
        let (key, value_at) = str_at(buf, pos)?;
        let end = skip(buf, value_at)?;
        visit(key, value_at..end)?;
        pos = end;
    }
    (pos == buf.len()).then_some(())
}

/// The string at `pos` and the position after it.
pub(crate) fn str_at(buf: &[u8], pos: usize) -> Option<(&[u8], usize)> {
    let (len, head) = match *buf.get(pos)? {
        marker @ 0xa0..=0xbf => ((marker & 0x1f) as usize, 1),
        0xd9 => (be(buf, pos + 1, 1)?, 2),
        0xda => (be(buf, pos + 1, 2)?, 3),
        0xdb => (be(buf, pos + 1, 4)?, 5),
        _ => return None,
    };
    let start = pos + head;
    let end = start.checked_add(len)?;
    Some((buf.get(start..end)?, end))
}

/// A big-endian unsigned integer of `width` bytes at `pos`.
fn be(buf: &[u8], pos: usize, width: usize) -> Option<usize> {
    let bytes = buf.get(pos..pos.checked_add(width)?)?;
    Some(bytes.iter().fold(0usize, |acc, &b| (acc << 8) | b as usize))
}

/// The position after the value at `pos`. Iterative (a count of values still to skip), so
/// deep nesting cannot overflow the stack; every length is checked against the buffer.
pub(crate) fn skip(buf: &[u8], mut pos: usize) -> Option<usize> {
    let mut pending: usize = 1;
    while pending > 0 {
        pending -= 1;
        let marker = *buf.get(pos)?;
        let (head, body, children) = match marker {
            0x00..=0x7f | 0xe0..=0xff | 0xc0 | 0xc2 | 0xc3 => (1, 0, 0),
            0x80..=0x8f => (1, 0, 2 * (marker & 0x0f) as usize),
            0x90..=0x9f => (1, 0, (marker & 0x0f) as usize),
            0xa0..=0xbf => (1, (marker & 0x1f) as usize, 0),
            0xc4 | 0xd9 => (2, be(buf, pos + 1, 1)?, 0),
            0xc5 | 0xda => (3, be(buf, pos + 1, 2)?, 0),
            0xc6 | 0xdb => (5, be(buf, pos + 1, 4)?, 0),
            0xc7 => (3, be(buf, pos + 1, 1)?, 0),
            0xc8 => (4, be(buf, pos + 1, 2)?, 0),
            0xc9 => (6, be(buf, pos + 1, 4)?, 0),
            0xca => (5, 0, 0),
            0xcb => (9, 0, 0),
            0xcc | 0xd0 => (2, 0, 0),
            0xcd | 0xd1 => (3, 0, 0),
            0xce | 0xd2 => (5, 0, 0),
            0xcf | 0xd3 => (9, 0, 0),
            0xd4 => (3, 0, 0),
            0xd5 => (4, 0, 0),
            0xd6 => (6, 0, 0),
            0xd7 => (10, 0, 0),
            0xd8 => (18, 0, 0),
            0xdc => (3, 0, be(buf, pos + 1, 2)?),
            0xdd => (5, 0, be(buf, pos + 1, 4)?),
            0xde => (3, 0, 2 * be(buf, pos + 1, 2)?),
            0xdf => (5, 0, 2 * be(buf, pos + 1, 4)?),
            // 0xc1 is never used.
            _ => return None,
        };
        pos = pos.checked_add(head)?.checked_add(body)?;
        if pos > buf.len() {
            return None;
        }
        // Every value takes at least one byte: more children than bytes left is a lie.
        if children > buf.len() - pos {
            return None;
        }
        pending = pending.checked_add(children)?;
    }
    Some(pos)
}

#[cfg(test)]
mod tests;
