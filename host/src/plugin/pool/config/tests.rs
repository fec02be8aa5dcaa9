use super::{PoolConfig, PoolConfigError, PoolTls, check_pools};

const DIGEST: &str = "4ac9446ed3a3ea7c4d4b7e5b6f1e2bd8ad6e0cfabe9e1e5f4fd6f2cc6d7ae6a1";

fn pool(name: &str, listen: &str) -> PoolConfig {
    PoolConfig {
        name: name.into(),
        plugin: format!("examples.{name}"),
        listen: listen.parse().unwrap(),
        token_sha256: vec![DIGEST.into()],
        tls: None,
        settings: Default::default(),
    }
}

#[test]
fn a_pool_parses_from_toml_with_its_tls_files_and_grants() {
    let text = format!(
        r#"
        name = "echo"
        plugin = "examples.echo"
        listen = "0.0.0.0:7443"
        token_sha256 = ["{DIGEST}"]
        [tls]
        cert_file = "host.pem"
        key_file = "host.key"
        client_ca_file = "ca.pem"
        [settings]
        capabilities = ["kv.*"]
        "#
    );
    let mut parsed: PoolConfig = toml::from_str(&text).unwrap();
    check_pools(std::slice::from_ref(&parsed), []).unwrap();
    parsed.resolve_paths(std::path::Path::new("/etc/maitool"));
    let tls = parsed.tls.unwrap();
    assert_eq!(tls.cert_file, std::path::Path::new("/etc/maitool/host.pem"));
    assert_eq!(parsed.settings.capabilities, ["kv.*"]);
}

#[test]
fn each_mistake_is_named() {
    let check = |pools: &[PoolConfig]| check_pools(pools, [("examples.taken", "r1")]).unwrap_err();

    let mut bad = pool("p", "127.0.0.1:1");
    bad.token_sha256 = vec!["the-token-itself".into()];
    let err = check(&[bad]);
    assert!(matches!(err, PoolConfigError::BadDigest { index: 0, .. }));
    assert!(err.to_string().contains("never the token"), "{err}");

    let mut bad = pool("p", "127.0.0.1:1");
    bad.token_sha256 = vec![
        DIGEST.into(),
        super::TokenEntry::Expiring(super::super::token_entry::ExpiringToken {
            sha256: DIGEST.into(),
            expires: "next tuesday".into(),
        }),
    ];
    let err = check(&[bad]);
    assert!(matches!(err, PoolConfigError::BadExpiry { index: 1, .. }));
    assert!(
        err.to_string().starts_with(
            "pools.p.token_sha256[1].expires: \"next tuesday\" is not an RFC 3339 time"
        ),
        "{err}"
    );

    let mut bad = pool("p", "127.0.0.1:1");
    bad.token_sha256.clear();
    assert!(matches!(check(&[bad]), PoolConfigError::NoToken { .. }));

    let open = pool("p", "0.0.0.0:7443");
    let err = check(&[open]);
    assert!(matches!(
        err,
        PoolConfigError::NeedsClientCertificates { .. }
    ));
    let mut no_client_ca = pool("p", "10.0.0.1:7443");
    no_client_ca.tls = Some(PoolTls {
        cert_file: "c".into(),
        key_file: "k".into(),
        client_ca_file: None,
    });
    assert!(matches!(
        check(&[no_client_ca]),
        PoolConfigError::NeedsClientCertificates { .. }
    ));

    let mut taken = pool("p", "127.0.0.1:1");
    taken.plugin = "examples.taken".into();
    let err = check(&[taken]);
    assert!(
        err.to_string().contains("also configured for runner r1"),
        "{err}"
    );

    let err = check(&[pool("p", "127.0.0.1:1"), pool("p", "127.0.0.1:2")]);
    assert!(matches!(err, PoolConfigError::DuplicateName { .. }));
    let err = check(&[pool("p", "127.0.0.1:1"), pool("q", "127.0.0.1:1")]);
    assert!(matches!(err, PoolConfigError::DuplicateAddress { .. }));
    // Port 0 picks a free port for each pool: no collision.
    check_pools(&[pool("p", "127.0.0.1:0"), pool("q", "127.0.0.1:0")], []).unwrap();

    let mut grant = pool("p", "127.0.0.1:1");
    grant.settings.capabilities = vec!["kv.gett".into()];
    assert!(matches!(check(&[grant]), PoolConfigError::Grant { .. }));

    let mut id = pool("p", "127.0.0.1:1");
    id.plugin = "../escape".into();
    assert!(matches!(check(&[id]), PoolConfigError::Plugin { .. }));
}
