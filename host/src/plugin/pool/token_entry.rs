//! One entry of a pool's `token_sha256`: a token's digest, alone or with the time the token
//! stops being accepted.

use serde::{Deserialize, Serialize};

/// A token the pool accepts, as the configuration names it: `"<sha256 hex>"`, or
/// `{ sha256 = "<hex>", expires = "<RFC 3339 time>" }` for a token retired at a known time
/// (the old token of a rotation).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    untagged,
    expecting = "a token digest (64 hexadecimal digits) or a table { sha256 = \"<digest>\", expires = \"<RFC 3339 time>\" }"
)]
pub enum TokenEntry {
    /// A digest with no expiry.
    Digest(String),
    /// A digest and when the token expires.
    Expiring(ExpiringToken),
}

/// A digest with its expiry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpiringToken {
    /// The token's SHA-256, 64 hexadecimal digits.
    pub sha256: String,
    /// When the token stops being accepted (RFC 3339, for example `2027-01-31T00:00:00Z`).
    pub expires: String,
}

/// A checked entry: the digest's bytes and its expiry in milliseconds since the Unix epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AcceptedToken {
    pub digest: [u8; 32],
    pub expires_at_ms: Option<u64>,
}

/// Why an entry is unusable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum EntryProblem {
    Digest,
    Expiry(String),
}

impl From<String> for TokenEntry {
    fn from(digest: String) -> Self {
        TokenEntry::Digest(digest)
    }
}

impl From<&str> for TokenEntry {
    fn from(digest: &str) -> Self {
        TokenEntry::Digest(digest.to_owned())
    }
}

impl TokenEntry {
    /// The digest as written.
    pub fn sha256(&self) -> &str {
        match self {
            TokenEntry::Digest(hex) => hex,
            TokenEntry::Expiring(entry) => &entry.sha256,
        }
    }

    /// The entry decoded.
    pub(crate) fn check(&self) -> Result<AcceptedToken, EntryProblem> {
        let digest = decode_digest(self.sha256()).ok_or(EntryProblem::Digest)?;
        let expires_at_ms = match self {
            TokenEntry::Digest(_) => None,
            TokenEntry::Expiring(entry) => Some(parse_expiry(&entry.expires)?),
        };
        Ok(AcceptedToken {
            digest,
            expires_at_ms,
        })
    }
}

fn parse_expiry(text: &str) -> Result<u64, EntryProblem> {
    let time = chrono::DateTime::parse_from_rfc3339(text.trim()).map_err(|err| {
        EntryProblem::Expiry(format!(
            "{text:?} is not an RFC 3339 time such as 2027-01-31T00:00:00Z ({err})"
        ))
    })?;
    u64::try_from(time.timestamp_millis())
        .map_err(|_| EntryProblem::Expiry(format!("{text:?} is before 1970")))
}

/// A SHA-256 digest written as 64 hexadecimal digits (either case).
pub(crate) fn decode_digest(hex: &str) -> Option<[u8; 32]> {
    let hex = hex.trim().as_bytes();
    if hex.len() != 64 {
        return None;
    }
    let mut digest = [0u8; 32];
    for (byte, pair) in digest.iter_mut().zip(hex.chunks(2)) {
        let text = std::str::from_utf8(pair).ok()?;
        *byte = u8::from_str_radix(text, 16).ok()?;
    }
    Some(digest)
}
