//! Pool token proofs: how a pool member shows that it holds its pool's token without sending
//! the token, in a form good for one connection only.
//!
//! The host keeps only `D = SHA-256(token)` for each token it accepts. A member sends, in
//! `runner.hello`, the token masked with a key stream that only a holder of `D` can compute
//! and that depends on this connection:
//!
//! ```text
//! context   = "maitool pool token proof v1" 0x00
//!             pool 0x00 member 0x00 issued_at_ms (decimal) 0x00
//!             nonce (16 bytes) binding (32 bytes; absent on plain TCP)
//! key       = HKDF-SHA-256(salt: none, input: D, info: context), as long as the token
//! proof     = token XOR key
//! ```
//!
//! The host recomputes `key` from each accepted `D`, unmasks, and accepts when the SHA-256 of
//! the result is that `D`. So:
//!
//! * the token never crosses the wire, and a stolen configuration (which holds `D`) does not
//!   let anyone join: unmasking to a value whose SHA-256 is `D` needs the token itself;
//! * `binding` is the TLS connection's exported keying material ([`EXPORTER_LABEL`], RFC 8446
//!   §7.5), which both ends compute and nobody else can, so a proof copied from one TLS
//!   connection matches no token on another: it cannot be replayed;
//! * on plain TCP (loopback only) there is no binding; the host then requires `issued_at_ms`
//!   to be recent and refuses a nonce it has seen ([`PLAIN_TCP_WINDOW_MS`]).
//!
//! `channel` carries the SHA-256 of the binding the member used, so that the host can say
//! that a proof was made for another connection instead of only "no token matches".
//!
//! ```
//! use maitool_protocol::pool_token::{ProofContext, TokenProof, token_digest};
//!
//! let binding = [7u8; 32];
//! let context = ProofContext::new("search", "pod-1", 1_800_000_000_000, [1; 16], Some(&binding));
//! let proof = TokenProof::new("s3cret-token", &context).unwrap();
//! let accepted = [token_digest("old-token"), token_digest("s3cret-token")];
//! assert_eq!(proof.verify("search", "pod-1", Some(&binding), &accepted), Ok(1));
//! // The same proof on another connection matches nothing.
//! assert!(proof.verify("search", "pod-1", Some(&[8u8; 32]), &accepted).is_err());
//! ```

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use hkdf::Hkdf;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

#[cfg(test)]
mod tests;

/// The label both ends give TLS's keying material exporter for the channel binding.
pub const EXPORTER_LABEL: &[u8] = b"EXPORTER-maitool-pool-token-v1";
/// Bytes of keying material exported for the binding.
pub const BINDING_LEN: usize = 32;
/// Bytes of a proof's nonce.
pub const NONCE_LEN: usize = 16;
/// The longest token a proof can carry: HKDF-SHA-256's longest output.
pub const MAX_TOKEN_LEN: usize = 255 * 32;
/// On plain TCP, how far `issued_at_ms` may be from the host's clock, and how long the host
/// remembers a nonce.
pub const PLAIN_TCP_WINDOW_MS: u64 = 60_000;

const CONTEXT_TAG: &[u8] = b"maitool pool token proof v1";

/// A member's proof that it holds a token of its pool, in `runner.hello`'s `token_proof`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct TokenProof {
    /// The member's random nonce (base64 of [`NONCE_LEN`] bytes).
    pub nonce: String,
    /// When the member made the proof, in milliseconds since the Unix epoch.
    pub issued_at_ms: u64,
    /// Base64 of the SHA-256 of the channel binding the proof is bound to; empty on plain TCP.
    pub channel: String,
    /// Base64 of the masked token.
    pub proof: String,
}

/// What a proof is made for: the pool, the member, when, a nonce and the connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProofContext<'a> {
    /// The pool the member joins.
    pub pool: &'a str,
    /// The member's name.
    pub member: &'a str,
    /// Milliseconds since the Unix epoch.
    pub issued_at_ms: u64,
    /// Random bytes the member chose for this proof.
    pub nonce: [u8; NONCE_LEN],
    /// The TLS connection's exported keying material; `None` on plain TCP.
    pub binding: Option<&'a [u8]>,
}

/// Why a proof could not be made or was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenProofError {
    /// The token is empty or longer than [`MAX_TOKEN_LEN`] bytes.
    #[error("a pool token must be 1 to {MAX_TOKEN_LEN} bytes long, this one is {len}")]
    TokenLength {
        /// Its length in bytes.
        len: usize,
    },
    /// A field is not what the format says.
    #[error("malformed token proof: {0}")]
    Malformed(&'static str),
    /// The proof is bound to a connection other than this one.
    #[error(
        "the token proof was made for another connection (a replayed proof, or a TLS proxy between member and host)"
    )]
    OtherConnection,
    /// Unmasked with every accepted digest, the proof yields no token with that digest.
    #[error("the token proof matches none of the accepted tokens")]
    NoMatch,
}

/// The SHA-256 of a token as the host keeps it, of the token without surrounding whitespace.
pub fn token_digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.trim().as_bytes()).into()
}

impl<'a> ProofContext<'a> {
    /// A context; `binding` is `None` on plain TCP.
    pub fn new(
        pool: &'a str,
        member: &'a str,
        issued_at_ms: u64,
        nonce: [u8; NONCE_LEN],
        binding: Option<&'a [u8]>,
    ) -> Self {
        ProofContext {
            pool,
            member,
            issued_at_ms,
            nonce,
            binding,
        }
    }

    fn info(&self) -> Vec<u8> {
        let mut info = Vec::with_capacity(
            CONTEXT_TAG.len() + self.pool.len() + self.member.len() + 64 + BINDING_LEN,
        );
        for part in [
            CONTEXT_TAG,
            self.pool.as_bytes(),
            self.member.as_bytes(),
            self.issued_at_ms.to_string().as_bytes(),
        ] {
            info.extend_from_slice(part);
            info.push(0);
        }
        info.extend_from_slice(&self.nonce);
        info.extend_from_slice(self.binding.unwrap_or_default());
        info
    }
}

impl TokenProof {
    /// The proof of `token` (without surrounding whitespace) for `context`.
    pub fn new(token: &str, context: &ProofContext<'_>) -> Result<Self, TokenProofError> {
        let token = token.trim().as_bytes();
        if token.is_empty() || token.len() > MAX_TOKEN_LEN {
            return Err(TokenProofError::TokenLength { len: token.len() });
        }
        let digest: [u8; 32] = Sha256::digest(token).into();
        let mut masked = key_stream(&digest, &context.info(), token.len());
        for (byte, token_byte) in masked.iter_mut().zip(token) {
            *byte ^= token_byte;
        }
        Ok(TokenProof {
            nonce: BASE64.encode(context.nonce),
            issued_at_ms: context.issued_at_ms,
            channel: context.binding.map(channel_of).unwrap_or_default(),
            proof: BASE64.encode(masked),
        })
    }

    /// The nonce's bytes.
    pub fn nonce_bytes(&self) -> Result<[u8; NONCE_LEN], TokenProofError> {
        BASE64
            .decode(&self.nonce)
            .ok()
            .and_then(|bytes| bytes.try_into().ok())
            .ok_or(TokenProofError::Malformed(
                "nonce is not 16 bytes in base64",
            ))
    }

    /// Which of `accepted` (token digests) the proof shows the member holds, for a member
    /// `member` of `pool` on a connection whose binding is `binding` (`None` on plain TCP).
    /// Every digest is tried in full, so the time taken says nothing about which matched.
    pub fn verify(
        &self,
        pool: &str,
        member: &str,
        binding: Option<&[u8]>,
        accepted: &[[u8; 32]],
    ) -> Result<usize, TokenProofError> {
        let expected_channel = binding.map(channel_of).unwrap_or_default();
        if self.channel != expected_channel {
            return Err(TokenProofError::OtherConnection);
        }
        let nonce = self.nonce_bytes()?;
        let masked = BASE64
            .decode(&self.proof)
            .map_err(|_| TokenProofError::Malformed("proof is not base64"))?;
        if masked.is_empty() || masked.len() > MAX_TOKEN_LEN {
            return Err(TokenProofError::Malformed("proof has an impossible length"));
        }
        let info = ProofContext::new(pool, member, self.issued_at_ms, nonce, binding).info();
        let mut found = None;
        for (index, digest) in accepted.iter().enumerate() {
            let mut candidate = key_stream(digest, &info, masked.len());
            for (byte, masked_byte) in candidate.iter_mut().zip(&masked) {
                *byte ^= masked_byte;
            }
            let unmasked: [u8; 32] = Sha256::digest(&candidate).into();
            if equal(&unmasked, digest) && found.is_none() {
                found = Some(index);
            }
        }
        found.ok_or(TokenProofError::NoMatch)
    }
}

/// HKDF-SHA-256 output of `len` bytes; `len` is at most [`MAX_TOKEN_LEN`], checked by callers.
fn key_stream(digest: &[u8; 32], info: &[u8], len: usize) -> Vec<u8> {
    let mut out = vec![0u8; len];
    Hkdf::<Sha256>::new(None, digest)
        .expand(info, &mut out)
        .expect("callers bound the length to HKDF-SHA-256's maximum");
    out
}

fn channel_of(binding: &[u8]) -> String {
    BASE64.encode(Sha256::digest(binding))
}

/// Compares in full whatever the contents.
fn equal(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
