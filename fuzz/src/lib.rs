//! Shared pieces of the fuzz targets and of the seed generator (`examples/gen_seeds.rs`):
//! the round-trip checks, the table of wire types the `payloads` target dispatches on, and
//! the builders of frames and model answers. Keeping them here means the seeds are encoded
//! exactly the way the targets read them.

pub mod answers;
pub mod frames;
pub mod payload_table;
pub mod round_trip;

/// Splits fuzz input into `N` parts at NUL bytes (NUL is invalid in TOML and JSON text, so
/// the separator costs the text targets nothing); missing parts are empty.
pub fn split_parts<const N: usize>(data: &[u8]) -> [&[u8]; N] {
    let mut parts = [&data[..0]; N];
    let mut rest = data;
    for (index, part) in parts.iter_mut().enumerate() {
        if index + 1 == N {
            *part = rest;
            break;
        }
        match rest.iter().position(|&b| b == 0) {
            Some(at) => {
                *part = &rest[..at];
                rest = &rest[at + 1..];
            }
            None => {
                *part = rest;
                rest = &rest[rest.len()..];
            }
        }
    }
    parts
}
