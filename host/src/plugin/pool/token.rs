//! The pool token: members present it in `runner.hello`; the host keeps only SHA-256
//! digests of the tokens it accepts (the current one, and the next during a rotation).

use sha2::{Digest, Sha256};

/// Whether `token` is one of the tokens whose digests are `accepted`. Every digest is
/// compared in full, so the time taken says nothing about which bytes matched.
pub(crate) fn accepted(token: &str, accepted: &[[u8; 32]]) -> bool {
    let digest: [u8; 32] = Sha256::digest(token.trim().as_bytes()).into();
    accepted.iter().fold(false, |found, candidate| {
        let difference = candidate
            .iter()
            .zip(digest.iter())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b));
        found | (difference == 0)
    })
}

#[cfg(test)]
mod tests;
