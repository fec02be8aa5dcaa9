//! A member's token proof (`runner.hello`'s `token_proof`, see the protocol's `pool_token`):
//! which of the pool's tokens it proves, whether that token has expired, and on plain TCP,
//! where no TLS binding makes a proof single-use, whether it is recent and new.

use std::collections::HashMap;

use maitool_protocol::pool_token::{NONCE_LEN, PLAIN_TCP_WINDOW_MS, TokenProof, TokenProofError};
use parking_lot::Mutex;

use super::token_entry::AcceptedToken;

/// Why a proof was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum TokenRefusal {
    #[error("no token proof")]
    Missing,
    #[error("the token was sent in clear instead of as a token proof")]
    InClear,
    #[error(transparent)]
    Proof(#[from] TokenProofError),
    #[error("the token expired at {expired}")]
    Expired { expired: String },
    #[error(
        "the proof was issued {age_ms} ms from the host's clock; on plain TCP a proof must be within {PLAIN_TCP_WINDOW_MS} ms"
    )]
    Stale { age_ms: i64 },
    #[error("the proof's nonce was already used: a replayed hello")]
    Replayed,
}

/// Nonces of the proofs accepted on plain TCP within the window, to refuse a second use.
#[derive(Debug, Default)]
pub(crate) struct ReplayGuard {
    seen: Mutex<HashMap<[u8; NONCE_LEN], u64>>,
}

impl ReplayGuard {
    /// Records `nonce`, issued at `issued_at_ms`, unless it was seen; forgets nonces whose
    /// proofs are too old to be accepted again anyway.
    fn first_use(&self, nonce: [u8; NONCE_LEN], issued_at_ms: u64, now_ms: u64) -> bool {
        let mut seen = self.seen.lock();
        let horizon = now_ms.saturating_sub(PLAIN_TCP_WINDOW_MS);
        seen.retain(|_, issued| *issued >= horizon);
        seen.insert(nonce, issued_at_ms).is_none()
    }
}

/// Checks `proof` for member `member` of `pool` on a connection with TLS binding `binding`
/// (`None` on plain TCP): returns the index of the token it proves.
pub(crate) fn check(
    proof: Option<&TokenProof>,
    clear_token: &str,
    at: ProofSite<'_>,
    tokens: &[AcceptedToken],
    guard: &ReplayGuard,
    now_ms: u64,
) -> Result<usize, TokenRefusal> {
    let Some(proof) = proof else {
        return Err(if clear_token.trim().is_empty() {
            TokenRefusal::Missing
        } else {
            TokenRefusal::InClear
        });
    };
    let digests: Vec<[u8; 32]> = tokens.iter().map(|token| token.digest).collect();
    let index = proof.verify(at.pool, at.member, at.binding, &digests)?;
    if let Some(expires_at_ms) = tokens[index].expires_at_ms
        && now_ms >= expires_at_ms
    {
        return Err(TokenRefusal::Expired {
            expired: rfc3339(expires_at_ms),
        });
    }
    if at.binding.is_none() {
        let age_ms = now_ms as i64 - proof.issued_at_ms as i64;
        if age_ms.unsigned_abs() > PLAIN_TCP_WINDOW_MS {
            return Err(TokenRefusal::Stale { age_ms });
        }
        if !guard.first_use(proof.nonce_bytes()?, proof.issued_at_ms, now_ms) {
            return Err(TokenRefusal::Replayed);
        }
    }
    Ok(index)
}

/// Where a proof is checked: the pool, the member's name, the connection's TLS binding.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ProofSite<'a> {
    pub pool: &'a str,
    pub member: &'a str,
    pub binding: Option<&'a [u8]>,
}

fn rfc3339(ms: u64) -> String {
    i64::try_from(ms)
        .ok()
        .and_then(chrono::DateTime::from_timestamp_millis)
        .map(|time| time.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        .unwrap_or_else(|| format!("{ms} ms after the Unix epoch"))
}

/// Milliseconds since the Unix epoch now.
pub(crate) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|since| since.as_millis() as u64)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests;
