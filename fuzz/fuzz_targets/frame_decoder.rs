//! The length-prefixed frame decoder fed arbitrary bytes in arbitrary chunks: it must yield
//! exactly the frames a plain reading of the length prefixes gives, in order, then stop with
//! the right error; a frame over the limit is refused from its prefix, without a buffer of
//! the announced size.
//!
//! Input: one byte `n`, then `n % 16` chunk sizes (one byte each), then the stream.
#![no_main]

use bytes::{Bytes, BytesMut};
use libfuzzer_sys::fuzz_target;
use maitool_protocol::wire::{FrameDecoder, MAX_FRAME_LEN, WireError};
use tokio_util::codec::{Decoder, Encoder, LengthDelimitedCodec};

/// A limit small enough for the fuzzer to write real frames over it.
const SMALL_MAX: usize = 64;

fuzz_target!(|data: &[u8]| {
    let Some((&n, rest)) = data.split_first() else {
        return;
    };
    let splits = usize::from(n % 16).min(rest.len());
    let (sizes, stream) = rest.split_at(splits);
    let sizes: Vec<usize> = sizes.iter().map(|&s| usize::from(s).max(1)).collect();

    check(FrameDecoder::new(), MAX_FRAME_LEN, &sizes, stream);
    let small = LengthDelimitedCodec::builder()
        .length_field_length(4)
        .big_endian()
        .max_frame_length(SMALL_MAX)
        .new_codec();
    check(FrameDecoder::from_codec(small), SMALL_MAX, &sizes, stream);
});

/// How a stream ends.
#[derive(Debug, PartialEq)]
enum End {
    /// At a frame boundary.
    Clean,
    /// A prefix announces more than the limit.
    TooLarge(usize),
    /// Inside a frame, with that many bytes of it buffered.
    Truncated(usize),
}

/// The frames and the end of `stream`, read straight from its length prefixes.
fn expected(stream: &[u8], max: usize) -> (Vec<&[u8]>, End) {
    let mut frames = Vec::new();
    let mut rest = stream;
    loop {
        if rest.is_empty() {
            return (frames, End::Clean);
        }
        if rest.len() < 4 {
            return (frames, End::Truncated(rest.len()));
        }
        let len = u32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
        if len > max {
            return (frames, End::TooLarge(len));
        }
        if rest.len() - 4 < len {
            // The decoder has consumed the prefix by then: only the body counts as buffered.
            return (frames, End::Truncated(rest.len() - 4));
        }
        frames.push(&rest[4..4 + len]);
        rest = &rest[4 + len..];
    }
}

fn check(mut decoder: FrameDecoder, max: usize, sizes: &[usize], stream: &[u8]) {
    let (want_frames, want_end) = expected(stream, max);
    let mut buf = BytesMut::new();
    let mut frames: Vec<BytesMut> = Vec::new();
    let mut end = None;
    let mut fed = 0;
    let mut size = sizes.iter().cycle();
    'feed: while fed < stream.len() {
        let take = size
            .next()
            .copied()
            .unwrap_or(stream.len())
            .min(stream.len() - fed);
        buf.extend_from_slice(&stream[fed..fed + take]);
        fed += take;
        loop {
            match decoder.decode(&mut buf) {
                Ok(Some(frame)) => frames.push(frame),
                Ok(None) => break,
                Err(err) => {
                    end = Some(err);
                    break 'feed;
                }
            }
            bounded(&buf, stream.len(), max);
        }
        bounded(&buf, stream.len(), max);
    }
    let end = match end {
        Some(err) => err_to_end(err),
        None => loop {
            match decoder.decode_eof(&mut buf) {
                Ok(Some(frame)) => frames.push(frame),
                Ok(None) => break End::Clean,
                Err(err) => break err_to_end(err),
            }
        },
    };
    let got: Vec<&[u8]> = frames.iter().map(|f| &f[..]).collect();
    assert_eq!(got, want_frames, "frames differ (max {max})");
    assert_eq!(end, want_end, "end of stream differs (max {max})");

    // Re-encoding the frames gives back the stream they came from.
    let mut encoded = BytesMut::new();
    let mut codec = LengthDelimitedCodec::builder()
        .length_field_length(4)
        .big_endian()
        .max_frame_length(max)
        .new_codec();
    for frame in &frames {
        codec
            .encode(Bytes::copy_from_slice(frame), &mut encoded)
            .expect("a decoded frame re-encodes");
    }
    assert_eq!(&encoded[..], &stream[..encoded.len()]);
}

fn err_to_end(err: WireError) -> End {
    match err {
        WireError::FrameTooLarge { len, .. } => End::TooLarge(len),
        WireError::TruncatedFrame { buffered } => End::Truncated(buffered),
        other => panic!("unexpected decoder error: {other}"),
    }
}

/// The buffer may grow to hold one frame of at most `max` bytes (the decoder reserves a
/// frame's length once its prefix is read) plus the input, never to an announced size
/// beyond the limit. BytesMut may double its capacity when it grows.
fn bounded(buf: &BytesMut, input: usize, max: usize) {
    let limit = 2 * (input + max + 8) + 1024;
    assert!(
        buf.capacity() <= limit,
        "buffer of {} bytes for {input} bytes of input (max frame {max})",
        buf.capacity()
    );
}
