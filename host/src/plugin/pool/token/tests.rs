use maitool_protocol::pool_token::{ProofContext, TokenProof, TokenProofError, token_digest};

use super::{ProofSite, ReplayGuard, TokenRefusal, check};
use crate::plugin::pool::token_entry::{AcceptedToken, TokenEntry, decode_digest};

/// `printf 'secret-token' | sha256sum`
const SECRET_DIGEST: &str = "4ac9446ed3a3ea7c4d4b7e5b6f1e2bd8ad6e0cfabe9e1e5f4fd6f2cc6d7ae6a1";
const NOW: u64 = 1_800_000_000_000;
const BINDING: [u8; 32] = [5; 32];

fn token(text: &str, expires_at_ms: Option<u64>) -> AcceptedToken {
    AcceptedToken {
        digest: token_digest(text),
        expires_at_ms,
    }
}

fn proof(text: &str, issued_at_ms: u64, nonce: u8, binding: Option<&[u8]>) -> TokenProof {
    let context = ProofContext::new("p1", "m1", issued_at_ms, [nonce; 16], binding);
    TokenProof::new(text, &context).unwrap()
}

fn site(binding: Option<&[u8]>) -> ProofSite<'_> {
    ProofSite {
        pool: "p1",
        member: "m1",
        binding,
    }
}

#[test]
fn the_proved_token_is_found_among_current_and_next() {
    let tokens = [token("old", None), token("secret-token", None)];
    let guard = ReplayGuard::default();
    let tls = proof("secret-token\n", NOW, 1, Some(&BINDING));
    assert_eq!(
        check(Some(&tls), "", site(Some(&BINDING)), &tokens, &guard, NOW),
        Ok(1)
    );
    let wrong = proof("secret-tokem", NOW, 2, Some(&BINDING));
    assert_eq!(
        check(Some(&wrong), "", site(Some(&BINDING)), &tokens, &guard, NOW),
        Err(TokenRefusal::Proof(TokenProofError::NoMatch))
    );
    assert_eq!(
        check(None, "", site(None), &tokens, &guard, NOW),
        Err(TokenRefusal::Missing)
    );
    assert_eq!(
        check(None, "secret-token", site(None), &tokens, &guard, NOW),
        Err(TokenRefusal::InClear)
    );
}

#[test]
fn an_expired_token_is_refused_with_its_expiry_and_the_next_one_accepted() {
    let tokens = [token("old", Some(NOW)), token("next", None)];
    let guard = ReplayGuard::default();
    let old = proof("old", NOW, 1, Some(&BINDING));
    let refused = check(Some(&old), "", site(Some(&BINDING)), &tokens, &guard, NOW).unwrap_err();
    assert_eq!(
        refused.to_string(),
        "the token expired at 2027-01-15T08:00:00Z"
    );
    let before = check(
        Some(&old),
        "",
        site(Some(&BINDING)),
        &tokens,
        &guard,
        NOW - 1,
    );
    assert_eq!(before, Ok(0), "accepted until its expiry");
    let next = proof("next", NOW, 2, Some(&BINDING));
    assert_eq!(
        check(
            Some(&next),
            "",
            site(Some(&BINDING)),
            &tokens,
            &guard,
            NOW + 1
        ),
        Ok(1)
    );
}

#[test]
fn on_plain_tcp_a_proof_is_good_once_and_only_while_recent() {
    let tokens = [token("secret-token", None)];
    let guard = ReplayGuard::default();
    let fresh = proof("secret-token", NOW, 1, None);
    assert_eq!(
        check(Some(&fresh), "", site(None), &tokens, &guard, NOW),
        Ok(0)
    );
    assert_eq!(
        check(Some(&fresh), "", site(None), &tokens, &guard, NOW + 10),
        Err(TokenRefusal::Replayed)
    );
    let old = proof("secret-token", NOW - 61_000, 2, None);
    assert_eq!(
        check(Some(&old), "", site(None), &tokens, &guard, NOW),
        Err(TokenRefusal::Stale { age_ms: 61_000 })
    );
    // A refused proof does not spend its nonce, and a wrong token never reaches the cache.
    let wrong = proof("guess", NOW, 3, None);
    assert!(check(Some(&wrong), "", site(None), &tokens, &guard, NOW).is_err());
    let right_same_nonce = proof("secret-token", NOW, 3, None);
    assert_eq!(
        check(
            Some(&right_same_nonce),
            "",
            site(None),
            &tokens,
            &guard,
            NOW
        ),
        Ok(0)
    );
    // Under TLS the binding makes a proof single-use; the clock is not consulted, so members
    // on machines with skewed clocks still join.
    let skewed = proof("secret-token", NOW - 3_600_000, 4, Some(&BINDING));
    assert_eq!(
        check(
            Some(&skewed),
            "",
            site(Some(&BINDING)),
            &tokens,
            &guard,
            NOW
        ),
        Ok(0)
    );
}

#[test]
fn the_guard_forgets_nonces_past_the_window() {
    let tokens = [token("secret-token", None)];
    let guard = ReplayGuard::default();
    for nonce in 0..50u8 {
        let p = proof("secret-token", NOW, nonce, None);
        check(Some(&p), "", site(None), &tokens, &guard, NOW).unwrap();
    }
    let later = proof("secret-token", NOW + 120_000, 99, None);
    check(Some(&later), "", site(None), &tokens, &guard, NOW + 120_000).unwrap();
    assert_eq!(guard.seen.lock().len(), 1);
}

#[test]
fn digests_are_decoded_from_64_hexadecimal_digits_only() {
    assert!(decode_digest(SECRET_DIGEST).is_some());
    assert!(decode_digest(&SECRET_DIGEST.to_uppercase()).is_some());
    assert!(decode_digest(&SECRET_DIGEST[1..]).is_none());
    assert!(decode_digest(&format!("{}g", &SECRET_DIGEST[1..])).is_none());
    assert!(decode_digest("secret-token").is_none());
}

#[test]
fn entries_parse_as_a_digest_or_a_digest_with_expiry() {
    #[derive(serde::Deserialize)]
    struct Wrapper {
        token_sha256: Vec<TokenEntry>,
    }
    let text = format!(
        "token_sha256 = [\"{SECRET_DIGEST}\", {{ sha256 = \"{SECRET_DIGEST}\", expires = \"2027-01-15T08:00:00Z\" }}]"
    );
    let parsed: Wrapper = toml::from_str(&text).unwrap();
    let checked: Vec<_> = parsed
        .token_sha256
        .iter()
        .map(|entry| entry.check().unwrap().expires_at_ms)
        .collect();
    assert_eq!(checked, [None, Some(NOW)]);
    let err = toml::from_str::<Wrapper>("token_sha256 = [{ sha = \"x\" }]")
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("a token digest (64 hexadecimal digits) or a table"),
        "{err}"
    );
}
