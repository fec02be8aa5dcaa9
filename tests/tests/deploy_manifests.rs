//! The Kubernetes manifests of deploy/ against the code they configure (their schema is
//! checked by `.ci/lint-deploy.sh`): every `MAITOOL_POOL_*` variable a manifest sets is one a
//! member reads, and its probes ask the paths a member answers (`pool_probes` tests those).

use std::path::PathBuf;

use maitool_protocol::launch::pool;

fn manifest(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../deploy")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

#[test]
fn the_pool_member_deployment_sets_only_variables_a_member_reads_and_probes_its_paths() {
    let yaml = manifest("pool-member.yaml");
    let known = [
        pool::ADDRESS,
        pool::NAME,
        pool::TOKEN_FILE,
        pool::CA_FILE,
        pool::CERT_FILE,
        pool::KEY_FILE,
        pool::SERVER_NAME,
        pool::MEMBER,
        pool::RUNNER_VERSION,
        pool::HEALTH_ADDRESS,
    ];
    let set: Vec<&str> = yaml
        .lines()
        .filter_map(|line| line.trim().strip_prefix("- name: "))
        .filter(|name| name.starts_with("MAITOOL_POOL_"))
        .collect();
    for name in &set {
        assert!(
            known.contains(name),
            "deploy/pool-member.yaml sets {name}, which no member reads"
        );
    }
    for needed in [
        pool::ADDRESS,
        pool::NAME,
        pool::TOKEN_FILE,
        pool::HEALTH_ADDRESS,
    ] {
        assert!(
            set.contains(&needed),
            "deploy/pool-member.yaml does not set {needed}"
        );
    }
    assert!(yaml.contains("path: /livez") && yaml.contains("path: /readyz"));
}
