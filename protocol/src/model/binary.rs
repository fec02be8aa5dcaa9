use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde::de::{self, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Binary payload of a content item (image, audio, blob).
///
/// Serialized as MessagePack `bin` on the wire (no base64 inflation) and as a base64 string in
/// JSON. Deserialization accepts bytes, a base64 string, or a `data:` URL, whatever the format,
/// so runners in other languages may send either.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct BinaryData(pub Vec<u8>);

impl BinaryData {
    /// True when there are no bytes.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The payload as standard base64.
    pub fn to_base64(&self) -> String {
        BASE64.encode(&self.0)
    }

    /// Decodes standard base64, or a `data:<mime>;base64,<data>` URL.
    pub fn from_base64(text: &str) -> Result<Self, base64::DecodeError> {
        let text = text.trim();
        let encoded = match text.strip_prefix("data:") {
            Some(rest) => rest.split_once(',').map(|(_, data)| data).unwrap_or(rest),
            None => text,
        };
        BASE64.decode(encoded).map(BinaryData)
    }
}

impl fmt::Debug for BinaryData {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BinaryData({} bytes)", self.0.len())
    }
}

impl From<Vec<u8>> for BinaryData {
    fn from(bytes: Vec<u8>) -> Self {
        BinaryData(bytes)
    }
}

impl Serialize for BinaryData {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if serializer.is_human_readable() {
            serializer.serialize_str(&self.to_base64())
        } else {
            serializer.serialize_bytes(&self.0)
        }
    }
}

impl<'de> Deserialize<'de> for BinaryData {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(BinaryVisitor)
    }
}

struct BinaryVisitor;

/// The most bytes preallocated for binary data sent as an array of integers.
const MAX_PREALLOCATED: usize = 64 * 1024;

impl<'de> Visitor<'de> for BinaryVisitor {
    type Value = BinaryData;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("bytes, a base64 string or a data URL")
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<BinaryData, E> {
        Ok(BinaryData(v.to_vec()))
    }

    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<BinaryData, E> {
        Ok(BinaryData(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<BinaryData, E> {
        BinaryData::from_base64(v).map_err(|err| E::custom(format!("invalid base64 data: {err}")))
    }

    fn visit_unit<E: de::Error>(self) -> Result<BinaryData, E> {
        Ok(BinaryData::default())
    }

    fn visit_none<E: de::Error>(self) -> Result<BinaryData, E> {
        Ok(BinaryData::default())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<BinaryData, A::Error> {
        // The hint is the peer's announced count (a 5-byte MessagePack array header can claim
        // 4 Gi elements): preallocate only what a real payload plausibly needs, and let the
        // vector grow with the elements that actually arrive.
        let mut bytes = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(MAX_PREALLOCATED));
        while let Some(byte) = seq.next_element::<u8>()? {
            bytes.push(byte);
        }
        Ok(BinaryData(bytes))
    }
}
