//! Images in the store, whichever backend holds them: their MIME type, their name (the SHA-256
//! MaiBot names images by), and the checks and reads an emoji needs outside the database.

use std::path::{Path, PathBuf};

use super::{NewEmoji, StoreError};
use crate::builtin::engine::{Emoji, EmojiMatch};

/// The image MIME type of `bytes` by their signature, else by the file extension.
pub(crate) fn image_mime(bytes: Option<&[u8]>, path: Option<&Path>) -> Option<&'static str> {
    if let Some(bytes) = bytes {
        let by_magic = match bytes {
            [0x89, b'P', b'N', b'G', ..] => Some("image/png"),
            [0xFF, 0xD8, 0xFF, ..] => Some("image/jpeg"),
            [b'G', b'I', b'F', b'8', ..] => Some("image/gif"),
            [
                b'R',
                b'I',
                b'F',
                b'F',
                _,
                _,
                _,
                _,
                b'W',
                b'E',
                b'B',
                b'P',
                ..,
            ] => Some("image/webp"),
            [b'B', b'M', ..] => Some("image/bmp"),
            _ => None,
        };
        if by_magic.is_some() {
            return by_magic;
        }
    }
    let extension = path?.extension()?.to_str()?.to_ascii_lowercase();
    match extension.as_str() {
        "png" => Some("image/png"),
        "jpg" | "jpeg" => Some("image/jpeg"),
        "gif" => Some("image/gif"),
        "webp" => Some("image/webp"),
        "bmp" => Some("image/bmp"),
        _ => None,
    }
}

/// Lower-case hex SHA-256 of `data`, MaiBot's name for an image.
pub(crate) fn sha256_hex(data: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(data)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// An emoji's hash: of its bytes, else of its file; empty when the file cannot be read.
pub(super) fn emoji_hash(data: Option<&[u8]>, path: Option<&Path>) -> String {
    match (data.filter(|data| !data.is_empty()), path) {
        (Some(data), _) => sha256_hex(data),
        (None, Some(path)) => std::fs::read(path)
            .map(|bytes| sha256_hex(&bytes))
            .unwrap_or_default(),
        (None, None) => String::new(),
    }
}

/// An emoji checked and ready to store: what every backend writes.
pub(super) struct PreparedEmoji {
    pub(super) source: String,
    pub(super) path: Option<String>,
    pub(super) data: Option<Vec<u8>>,
    pub(super) mime_type: String,
    pub(super) description: String,
    /// Trimmed, blanks left out.
    pub(super) emotions: Vec<String>,
    /// `emotions` as the JSON array stored beside the row.
    pub(super) emotions_json: String,
    pub(super) hash: String,
}

/// Checks an emoji (a source, and a file or bytes in a known image format) and computes what
/// is stored with it.
pub(super) fn prepare_emoji(emoji: NewEmoji) -> Result<PreparedEmoji, StoreError> {
    if emoji.source.trim().is_empty() {
        return Err(StoreError::Invalid("an emoji needs a source".into()));
    }
    if emoji.path.is_none() && emoji.data.as_ref().is_none_or(|data| data.is_empty()) {
        return Err(StoreError::Invalid(format!(
            "emoji {} has neither a file nor bytes",
            emoji.source
        )));
    }
    let mime_type = if emoji.mime_type.is_empty() {
        image_mime(emoji.data.as_deref(), emoji.path.as_deref())
            .ok_or_else(|| {
                StoreError::Invalid(format!(
                    "emoji {}: unknown image format (png, jpeg, gif, webp or bmp expected)",
                    emoji.source
                ))
            })?
            .to_owned()
    } else {
        emoji.mime_type.clone()
    };
    let emotions: Vec<String> = emoji
        .emotions
        .iter()
        .map(|emotion| emotion.trim().to_owned())
        .filter(|emotion| !emotion.is_empty())
        .collect();
    let emotions_json = serde_json::to_string(&emotions)
        .map_err(|err| StoreError::Invalid(format!("emotions: {err}")))?;
    let hash = emoji_hash(emoji.data.as_deref(), emoji.path.as_deref());
    Ok(PreparedEmoji {
        source: emoji.source.trim().to_owned(),
        path: emoji.path.as_ref().map(|path| path.display().to_string()),
        data: emoji.data,
        mime_type,
        description: emoji.description.trim().to_owned(),
        emotions,
        emotions_json,
        hash,
    })
}

/// A stored emoji as it is read, before its image is loaded.
pub(super) struct StoredEmoji {
    pub(super) id: i64,
    pub(super) path: Option<String>,
    pub(super) data: Option<Vec<u8>>,
    pub(super) mime_type: String,
    pub(super) description: String,
    pub(super) emotions: String,
}

/// The emoji with its image: the stored bytes, else its file read now.
pub(super) fn load_emoji(row: StoredEmoji, matched: EmojiMatch) -> Result<Emoji, StoreError> {
    let data = match (row.data, row.path) {
        (Some(data), _) if !data.is_empty() => data,
        (_, Some(path)) => std::fs::read(&path).map_err(|source| StoreError::Io {
            path: PathBuf::from(&path),
            source,
        })?,
        _ => {
            return Err(StoreError::Corrupted(format!(
                "emoji {} has no image",
                row.id
            )));
        }
    };
    Ok(Emoji {
        id: row.id,
        description: row.description,
        emotions: serde_json::from_str(&row.emotions)
            .map_err(|err| StoreError::Corrupted(format!("emotions of emoji {}: {err}", row.id)))?,
        mime_type: row.mime_type,
        data,
        matched,
    })
}
