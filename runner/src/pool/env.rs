//! A pool member's environment ([`maitool_protocol::launch::pool`]).

use std::path::PathBuf;

use maitool_protocol::launch::pool as names;

/// What a member reads at start; its files are read at every connection attempt.
#[derive(Debug, Clone)]
pub(crate) struct MemberEnv {
    /// `host:port` entries of `MAITOOL_POOL_ADDRESS`.
    pub hosts: Vec<String>,
    pub pool: String,
    pub member: String,
    pub runner_version: String,
    pub token_file: PathBuf,
    /// Set: TLS 1.3, the host's certificate checked against these authorities.
    pub ca_file: Option<PathBuf>,
    /// The client certificate and its key, when both are set.
    pub client_cert: Option<(PathBuf, PathBuf)>,
    pub server_name: Option<String>,
    /// Where to answer HTTP probes, if anywhere.
    pub health_address: Option<String>,
}

/// Why the environment does not describe a member.
#[derive(Debug, thiserror::Error)]
pub(crate) enum MemberEnvError {
    #[error("{0} is not set (a pool member needs {addr}, {name} and {token})", addr = names::ADDRESS, name = names::NAME, token = names::TOKEN_FILE)]
    Missing(&'static str),
    #[error("{} names no host", names::ADDRESS)]
    NoHost,
    #[error(
        "{} and {} go together: set both or neither",
        names::CERT_FILE,
        names::KEY_FILE
    )]
    HalfCertificate,
}

/// The member's environment, when `MAITOOL_POOL_ADDRESS` says the process is one.
pub(crate) type PoolEnv = Result<MemberEnv, MemberEnvError>;

/// `None`: not a pool member (a launched runner).
pub(crate) fn from_env() -> Option<PoolEnv> {
    let address = std::env::var(names::ADDRESS).ok()?;
    Some(read(&address, |name| std::env::var(name).ok()))
}

/// The member's settings from `address` and the variables `var` gives.
pub(crate) fn read(address: &str, var: impl Fn(&str) -> Option<String>) -> PoolEnv {
    let set = |name: &'static str| var(name).filter(|value| !value.trim().is_empty());
    let hosts: Vec<String> = address
        .split(',')
        .map(str::trim)
        .filter(|host| !host.is_empty())
        .map(str::to_owned)
        .collect();
    if hosts.is_empty() {
        return Err(MemberEnvError::NoHost);
    }
    let pool = set(names::NAME).ok_or(MemberEnvError::Missing(names::NAME))?;
    let token_file = set(names::TOKEN_FILE).ok_or(MemberEnvError::Missing(names::TOKEN_FILE))?;
    let client_cert = match (set(names::CERT_FILE), set(names::KEY_FILE)) {
        (Some(cert), Some(key)) => Some((cert.into(), key.into())),
        (None, None) => None,
        _ => return Err(MemberEnvError::HalfCertificate),
    };
    let member = set(names::MEMBER).unwrap_or_else(default_member);
    Ok(MemberEnv {
        hosts,
        pool,
        member,
        runner_version: set(names::RUNNER_VERSION).unwrap_or_default(),
        token_file: token_file.into(),
        ca_file: set(names::CA_FILE).map(PathBuf::from),
        client_cert,
        server_name: set(names::SERVER_NAME),
        health_address: set(names::HEALTH_ADDRESS),
    })
}

/// `<host name>-<pid>`: unique enough for logs, and a pod's name under Kubernetes.
fn default_member() -> String {
    let host = nix::unistd::gethostname()
        .ok()
        .and_then(|name| name.into_string().ok())
        .unwrap_or_else(|| "member".into());
    format!("{host}-{}", std::process::id())
}

#[cfg(test)]
mod tests;
