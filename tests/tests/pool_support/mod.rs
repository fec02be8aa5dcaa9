//! The pool tests' parts: certificates made in the test, a host runtime with one pool, and
//! pool members that are real example plugin processes dialling in.

#![allow(dead_code)]

pub mod raw_member;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use maitool_e2e::plugins::{Harness, fast_config};
use maitool_e2e::workspace_bin;
use maitool_host::plugin::{PoolConfig, PoolTls};
use maitool_protocol::{ToolExecutionContext, ToolExecutionResult, ToolInvocation};
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
use sha2::Digest;

/// The plugin every member serves: the replica example run as `p1`.
pub const PLUGIN: &str = "examples.replica.p1";
pub const TOKEN: &str = "pool-token-current";

/// A certificate authority and what it signed, as PEM files in `dir`.
pub struct Pki {
    pub ca: PathBuf,
    pub server_cert: PathBuf,
    pub server_key: PathBuf,
    pub client_cert: PathBuf,
    pub client_key: PathBuf,
}

impl Pki {
    /// A CA named `name`, a host certificate for `localhost` and 127.0.0.1, a member's
    /// client certificate; files `<name>-*.pem` in `dir`.
    pub fn make(dir: &Path, name: &str) -> Pki {
        Pki::make_for(dir, name, &["localhost", "127.0.0.1"])
    }

    /// [`Pki::make`] with a host certificate for `host_names` (names or IP addresses).
    pub fn make_for(dir: &Path, name: &str, host_names: &[&str]) -> Pki {
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params
            .distinguished_name
            .push(rcgen::DnType::CommonName, format!("{name} test CA"));
        let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().unwrap()).unwrap();
        let write = |file: &str, text: String| {
            let path = dir.join(format!("{name}-{file}.pem"));
            std::fs::write(&path, text).unwrap();
            path
        };
        let server_key = KeyPair::generate().unwrap();
        let names = host_names
            .iter()
            .map(|name| (*name).to_owned())
            .collect::<Vec<_>>();
        let server = CertificateParams::new(names)
            .unwrap()
            .signed_by(&server_key, &ca)
            .unwrap();
        let client_key = KeyPair::generate().unwrap();
        let mut client_params =
            CertificateParams::new(vec!["member.pool.test".to_owned()]).unwrap();
        client_params.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ClientAuth];
        let client = client_params.signed_by(&client_key, &ca).unwrap();
        Pki {
            ca: write("ca", ca.pem()),
            server_cert: write("server", server.pem()),
            server_key: write("server-key", server_key.serialize_pem()),
            client_cert: write("client", client.pem()),
            client_key: write("client-key", client_key.serialize_pem()),
        }
    }
}

/// The SHA-256 of a token, as `token_sha256` lists it.
pub fn digest(token: &str) -> String {
    sha2::Sha256::digest(token.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// A pool `p1` on a free loopback port serving [`PLUGIN`], accepting [`TOKEN`].
pub fn pool_config(tls: Option<&Pki>) -> PoolConfig {
    PoolConfig {
        name: "p1".into(),
        plugin: PLUGIN.into(),
        listen: "127.0.0.1:0".parse().unwrap(),
        token_sha256: vec![digest(TOKEN).into()],
        tls: tls.map(|pki| PoolTls {
            cert_file: pki.server_cert.clone(),
            key_file: pki.server_key.clone(),
            client_ca_file: Some(pki.ca.clone()),
        }),
        settings: Default::default(),
    }
}

/// A host runtime with no runner and the pool `config`; its address.
pub async fn host_with_pool(config: PoolConfig) -> (Harness, String) {
    let harness = Harness::start(fast_config(), Vec::new()).await;
    harness
        .runtime
        .start_pools(vec![config])
        .await
        .expect("pool starts");
    let (_, addr) = harness.runtime.pool_addresses()[0];
    (harness, addr.to_string())
}

/// How a member dials in.
#[derive(Clone)]
pub struct MemberSpec {
    pub address: String,
    pub token_file: PathBuf,
    /// CA file, client certificate and key.
    pub tls: Option<(PathBuf, PathBuf, PathBuf)>,
    pub name: String,
    /// The file each call id it runs is appended to.
    pub record: PathBuf,
    pub stderr: PathBuf,
    /// `REPLICA_VARIANT=2`: version 2.0.0 of the plugin, declared otherwise.
    pub second_version: bool,
    /// `MAITOOL_POOL_HEALTH_ADDRESS`.
    pub health_address: Option<String>,
    /// The network namespace to run in (`ip netns exec`).
    pub netns: Option<String>,
}

impl MemberSpec {
    pub fn new(dir: &Path, address: &str, token_file: &Path, name: &str) -> Self {
        MemberSpec {
            address: address.to_owned(),
            token_file: token_file.to_owned(),
            tls: None,
            name: name.to_owned(),
            record: dir.join(format!("{name}.calls")),
            stderr: dir.join(format!("{name}.stderr")),
            second_version: false,
            health_address: None,
            netns: None,
        }
    }

    pub fn tls(mut self, pki: &Pki) -> Self {
        self.tls = Some((
            pki.ca.clone(),
            pki.client_cert.clone(),
            pki.client_key.clone(),
        ));
        self
    }

    /// Starts the example plugin process as a pool member.
    pub fn spawn(&self) -> Child {
        let program = workspace_bin("maitool-example-replica");
        let mut command = match &self.netns {
            Some(netns) => {
                let mut command = Command::new("ip");
                command.args(["netns", "exec", netns]).arg(program);
                command
            }
            None => Command::new(program),
        };
        command
            .env("MAITOOL_RUNNER_NAME", "p1")
            .env("MAITOOL_POOL_ADDRESS", &self.address)
            .env("MAITOOL_POOL_NAME", "p1")
            .env("MAITOOL_POOL_TOKEN_FILE", &self.token_file)
            .env("MAITOOL_POOL_MEMBER", &self.name)
            .env("RECORD_CALLS", &self.record)
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&self.stderr).unwrap());
        if self.second_version {
            command.env("REPLICA_VARIANT", "2");
        }
        if let Some(address) = &self.health_address {
            command.env("MAITOOL_POOL_HEALTH_ADDRESS", address);
        }
        if let Some((ca, cert, key)) = &self.tls {
            command
                .env("MAITOOL_POOL_CA_FILE", ca)
                .env("MAITOOL_POOL_CERT_FILE", cert)
                .env("MAITOOL_POOL_KEY_FILE", key);
        }
        command.spawn().expect("the example member starts")
    }

    /// What the member wrote on its standard error.
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    /// The call ids the member ran.
    pub fn calls(&self) -> Vec<String> {
        std::fs::read_to_string(&self.record)
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }
}

/// Kills a member on drop, so that a failed test leaves no process behind.
pub struct Running(pub Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Waits until `check` holds, at most `limit`.
pub async fn until(what: &str, limit: Duration, mut check: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + limit;
    while !check() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{what} did not happen within {limit:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits until the pool has `count` members that take calls.
pub async fn members(harness: &Harness, count: usize) {
    until(
        &format!("{count} pool members"),
        Duration::from_secs(20),
        || {
            harness
                .runtime
                .pool_members("p1")
                .is_some_and(|members| members.len() == count)
        },
    )
    .await;
}

/// Calls `tool` with `args` under the call id `call_id`.
pub async fn call(
    harness: &Harness,
    tool: &str,
    args: serde_json::Value,
    call_id: &str,
) -> ToolExecutionResult {
    harness
        .registry
        .invoke(
            ToolInvocation::new(tool, args.as_object().cloned().unwrap_or_default())
                .with_call_id(call_id),
            &ToolExecutionContext::default(),
        )
        .await
}

/// Waits until the member's standard error contains `needle`; on failure shows all of it.
pub async fn until_logged(spec: &MemberSpec, needle: &str, limit: Duration) {
    let deadline = tokio::time::Instant::now() + limit;
    while !spec.stderr().contains(needle) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "member {} did not log {needle:?} within {limit:?}; it logged:\n{}",
            spec.name,
            spec.stderr()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
