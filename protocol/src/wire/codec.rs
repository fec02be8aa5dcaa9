use bytes::{Buf, BytesMut};
use tokio_util::codec::{Decoder, LengthDelimitedCodec, LengthDelimitedCodecError};

use super::{MAX_FRAME_LEN, WireError};

/// The frame codec: a 4-byte big-endian `u32` length, then that many bytes, at most
/// [`MAX_FRAME_LEN`] in both directions.
pub fn frame_codec() -> LengthDelimitedCodec {
    LengthDelimitedCodec::builder()
        .length_field_length(4)
        .big_endian()
        .max_frame_length(MAX_FRAME_LEN)
        .new_codec()
}

/// A frame decoder that names what went wrong.
///
/// It delegates to tokio-util's [`LengthDelimitedCodec`] (so the length check happens on the
/// 4-byte prefix, before any buffer grows) and turns its anonymous errors into
/// [`WireError::FrameTooLarge`] with the offending length and [`WireError::TruncatedFrame`].
#[derive(Debug)]
pub struct FrameDecoder {
    inner: LengthDelimitedCodec,
    /// The codec has consumed a frame's length prefix and waits for its body. The codec keeps
    /// this to itself, and its buffer is empty when the stream stops right after a prefix, so
    /// without it such a stream would look like one that ended between frames.
    in_frame: bool,
}

impl FrameDecoder {
    /// A decoder with the [`frame_codec`] settings.
    pub fn new() -> Self {
        Self::from_codec(frame_codec())
    }

    /// Wraps an existing codec, keeping its state: use this to continue reading a stream whose
    /// first frames (a handshake) were read through a `Framed` with that codec, at a frame
    /// boundary.
    pub fn from_codec(codec: LengthDelimitedCodec) -> Self {
        Self {
            inner: codec,
            in_frame: false,
        }
    }
}

impl Default for FrameDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl Decoder for FrameDecoder {
    type Item = BytesMut;
    type Error = WireError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<BytesMut>, WireError> {
        let buffered = src.len();
        match self.inner.decode(src) {
            Ok(Some(frame)) => {
                self.in_frame = false;
                Ok(Some(frame))
            }
            Ok(None) => {
                // Without a frame to return, the codec only consumes a length prefix.
                self.in_frame |= src.len() < buffered;
                Ok(None)
            }
            Err(err) if is_too_large(&err) => {
                // The codec rejects the head before consuming it, so the prefix is still there.
                let len = if src.len() >= 4 {
                    (&src[..4]).get_u32() as usize
                } else {
                    0
                };
                Err(WireError::FrameTooLarge {
                    len,
                    max: self.inner.max_frame_length(),
                })
            }
            Err(err) => Err(WireError::Io(err)),
        }
    }

    fn decode_eof(&mut self, buf: &mut BytesMut) -> Result<Option<BytesMut>, WireError> {
        match self.decode(buf)? {
            Some(frame) => Ok(Some(frame)),
            None if buf.is_empty() && !self.in_frame => Ok(None),
            None => Err(WireError::TruncatedFrame {
                buffered: buf.len(),
            }),
        }
    }
}

fn is_too_large(err: &std::io::Error) -> bool {
    err.get_ref()
        .is_some_and(|inner| inner.is::<LengthDelimitedCodecError>())
}
