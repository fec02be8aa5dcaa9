use super::accepted;
use crate::plugin::pool::config::decode_digest;

/// `printf 'secret-token' | sha256sum`
const SECRET_DIGEST: &str = "4ac9446ed3a3ea7c4d4b7e5b6f1e2bd8ad6e0cfabe9e1e5f4fd6f2cc6d7ae6a1";

#[test]
fn a_token_is_accepted_when_its_digest_is_listed_and_refused_otherwise() {
    use sha2::Digest;
    let real: [u8; 32] = sha2::Sha256::digest(b"secret-token").into();
    let other = decode_digest(SECRET_DIGEST).unwrap();
    assert!(accepted("secret-token", &[other, real]), "the next digest");
    assert!(
        accepted("secret-token\n", &[real]),
        "a file's final newline"
    );
    assert!(!accepted("secret-tokem", &[real]));
    assert!(!accepted("", &[real]));
    assert!(!accepted("secret-token", &[]));
}

#[test]
fn digests_are_decoded_from_64_hexadecimal_digits_only() {
    assert!(decode_digest(SECRET_DIGEST).is_some());
    assert!(decode_digest(&SECRET_DIGEST.to_uppercase()).is_some());
    assert!(decode_digest(&SECRET_DIGEST[1..]).is_none());
    assert!(decode_digest(&format!("{}g", &SECRET_DIGEST[1..])).is_none());
    assert!(decode_digest("secret-token").is_none());
}
