use super::*;

const BINDING: [u8; 32] = [9; 32];

fn context(binding: Option<&[u8]>) -> ProofContext<'_> {
    ProofContext::new("p1", "m1", 1_800_000_000_000, [3; NONCE_LEN], binding)
}

#[test]
fn a_proof_names_the_digest_of_its_token_and_not_the_token() {
    let proof = TokenProof::new("  the-token\n", &context(Some(&BINDING))).unwrap();
    let accepted = [token_digest("other"), token_digest("the-token")];
    assert_eq!(proof.verify("p1", "m1", Some(&BINDING), &accepted), Ok(1));
    let wire = serde_json::to_string(&proof).unwrap();
    assert!(!wire.contains("the-token"), "{wire}");
    assert!(!wire.contains(&BASE64.encode("the-token")), "{wire}");
}

#[test]
fn a_wrong_token_matches_nothing() {
    let proof = TokenProof::new("guess", &context(None)).unwrap();
    assert_eq!(
        proof.verify("p1", "m1", None, &[token_digest("the-token")]),
        Err(TokenProofError::NoMatch)
    );
}

#[test]
fn the_digest_alone_does_not_make_a_proof() {
    // An attacker who read the configuration holds the digest. A proof made with the
    // digest's hex text as "token" must not pass.
    let digest = token_digest("the-token");
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    let proof = TokenProof::new(&hex, &context(None)).unwrap();
    assert_eq!(
        proof.verify("p1", "m1", None, &[digest]),
        Err(TokenProofError::NoMatch)
    );
}

#[test]
fn a_proof_is_bound_to_its_connection_pool_member_and_time() {
    let proof = TokenProof::new("the-token", &context(Some(&BINDING))).unwrap();
    let accepted = [token_digest("the-token")];
    assert_eq!(
        proof.verify("p1", "m1", Some(&[1; 32]), &accepted),
        Err(TokenProofError::OtherConnection)
    );
    assert_eq!(
        proof.verify("p1", "m1", None, &accepted),
        Err(TokenProofError::OtherConnection)
    );
    assert_eq!(
        proof.verify("p2", "m1", Some(&BINDING), &accepted),
        Err(TokenProofError::NoMatch)
    );
    assert_eq!(
        proof.verify("p1", "m2", Some(&BINDING), &accepted),
        Err(TokenProofError::NoMatch)
    );
    let mut later = proof.clone();
    later.issued_at_ms += 1;
    assert_eq!(
        later.verify("p1", "m1", Some(&BINDING), &accepted),
        Err(TokenProofError::NoMatch)
    );
    let mut channel_forged = proof.clone();
    channel_forged.channel = BASE64.encode(Sha256::digest([1u8; 32]));
    assert_eq!(
        channel_forged.verify("p1", "m1", Some(&[1; 32]), &accepted),
        Err(TokenProofError::NoMatch),
        "a proof relabelled for another channel still does not unmask there"
    );
}

#[test]
fn malformed_fields_and_lengths_are_named() {
    let accepted = [token_digest("t")];
    let mut proof = TokenProof::new("t", &context(None)).unwrap();
    proof.nonce = "short".into();
    assert_eq!(
        proof.verify("p1", "m1", None, &accepted),
        Err(TokenProofError::Malformed(
            "nonce is not 16 bytes in base64"
        ))
    );
    let mut proof = TokenProof::new("t", &context(None)).unwrap();
    proof.proof = "%%%".into();
    assert_eq!(
        proof.verify("p1", "m1", None, &accepted),
        Err(TokenProofError::Malformed("proof is not base64"))
    );
    proof.proof = String::new();
    assert_eq!(
        proof.verify("p1", "m1", None, &accepted),
        Err(TokenProofError::Malformed("proof has an impossible length"))
    );
    assert_eq!(
        TokenProof::new("   ", &context(None)),
        Err(TokenProofError::TokenLength { len: 0 })
    );
    let long = "x".repeat(MAX_TOKEN_LEN + 1);
    assert_eq!(
        TokenProof::new(&long, &context(None)),
        Err(TokenProofError::TokenLength {
            len: MAX_TOKEN_LEN + 1
        })
    );
    let longest = "x".repeat(MAX_TOKEN_LEN);
    let proof = TokenProof::new(&longest, &context(None)).unwrap();
    assert_eq!(
        proof.verify("p1", "m1", None, &[token_digest(&longest)]),
        Ok(0)
    );
}
