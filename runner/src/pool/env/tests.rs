use std::collections::HashMap;

use super::{MemberEnvError, read};

fn vars(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    move |name| map.get(name).cloned()
}

#[test]
fn a_member_reads_its_hosts_pool_token_and_files() {
    let env = read(
        " a.example:7443, b.example:7443 ,",
        vars(&[
            ("MAITOOL_POOL_NAME", "echo"),
            ("MAITOOL_POOL_TOKEN_FILE", "/run/token"),
            ("MAITOOL_POOL_CA_FILE", "/run/ca.pem"),
            ("MAITOOL_POOL_CERT_FILE", "/run/member.pem"),
            ("MAITOOL_POOL_KEY_FILE", "/run/member.key"),
            ("MAITOOL_POOL_MEMBER", "pod-1"),
        ]),
    )
    .unwrap();
    assert_eq!(env.hosts, ["a.example:7443", "b.example:7443"]);
    assert_eq!(env.pool, "echo");
    assert_eq!(env.member, "pod-1");
    assert!(env.client_cert.is_some() && env.ca_file.is_some());
}

#[test]
fn a_missing_or_half_setting_is_named() {
    let missing = read("h:1", vars(&[("MAITOOL_POOL_NAME", "echo")])).unwrap_err();
    assert!(matches!(
        missing,
        MemberEnvError::Missing("MAITOOL_POOL_TOKEN_FILE")
    ));
    assert!(
        missing
            .to_string()
            .contains("MAITOOL_POOL_TOKEN_FILE is not set")
    );
    let half = read(
        "h:1",
        vars(&[
            ("MAITOOL_POOL_NAME", "echo"),
            ("MAITOOL_POOL_TOKEN_FILE", "/t"),
            ("MAITOOL_POOL_CERT_FILE", "/c"),
        ]),
    )
    .unwrap_err();
    assert!(matches!(half, MemberEnvError::HalfCertificate));
    assert!(matches!(
        read(" , ", vars(&[])).unwrap_err(),
        MemberEnvError::NoHost
    ));
}
