/// Why a frame could not be encoded, decoded or read.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    /// A value could not be encoded as MessagePack.
    #[error("cannot encode message: {0}")]
    Encode(#[from] rmp_serde::encode::Error),
    /// A frame's bytes are not the expected MessagePack structure.
    #[error("cannot decode message: {0}")]
    Decode(#[from] rmp_serde::decode::Error),
    /// A frame is over the size limit; on receive this is known from the length prefix alone.
    #[error("frame of {len} bytes exceeds the {max}-byte limit")]
    FrameTooLarge {
        /// The frame's length (without the 4-byte prefix).
        len: usize,
        /// The limit in force.
        max: usize,
    },
    /// The envelope names a message type this version does not know.
    #[error("unknown message type {message_type:?} (request id {request_id})")]
    UnknownMessageType {
        /// The envelope's request id.
        request_id: u64,
        /// The unknown type as sent.
        message_type: String,
    },
    /// The stream ended in the middle of a frame.
    #[error("connection closed in the middle of a frame ({buffered} bytes buffered)")]
    TruncatedFrame {
        /// Bytes of the unfinished frame that had arrived.
        buffered: usize,
    },
    /// The transport failed.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
}
