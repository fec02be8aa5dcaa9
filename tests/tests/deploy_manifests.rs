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

/// The ConfigMap's `maitool.toml`, out of its YAML block.
fn configmap_toml(yaml: &str) -> String {
    let block = yaml
        .split_once("  maitool.toml: |\n")
        .expect("a maitool.toml key")
        .1
        .split("\n---")
        .next()
        .unwrap();
    block
        .lines()
        .map(|line| line.strip_prefix("    ").unwrap_or(line.trim()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_hosts_configmap_is_a_configuration_maitool_accepts_and_probes_the_front_paths() {
    let yaml = manifest("maitool-hosts.yaml");
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("maitool.toml");
    std::fs::write(&config, configmap_toml(&yaml)).unwrap();
    // `status --ready` loads and checks the whole configuration before it asks the control
    // socket: exit 2 and the error for a bad one, exit 1 here (no serve in this test).
    let output = std::process::Command::new(maitool_e2e::workspace_bin("maitool"))
        .arg("--config")
        .arg(&config)
        .args(["status", "--ready"])
        .env("POD_IP", "10.0.0.7")
        .env(
            "MAITOOL_DATABASE_URL",
            "postgresql://maitool:secret@db.internal/maitool",
        )
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stdout}{stderr}");
    assert_eq!(
        stdout.trim(),
        "not ready: no maitool serve is running on /var/lib/maitool/control.sock",
        "{stderr}"
    );
    assert!(yaml.contains("path: /readyz") && yaml.contains("path: /livez"));
    assert!(yaml.contains(
        r#"args: ["--config", "/etc/maitool/maitool.toml", "serve", "--mcp-http", "0.0.0.0:8080"]"#
    ));
}
