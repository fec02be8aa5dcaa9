//! `[[pools]]`: a plugin served by members that dial in, instead of a child runner.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::token_entry::{AcceptedToken, EntryProblem, TokenEntry};
use crate::plugin::config::PluginSettings;

/// One pool of runners that dial in: its plugin, where it listens, the digests of the
/// tokens its members may present, its TLS files and the plugin's settings (grants and
/// configuration, for every member alike).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoolConfig {
    /// The pool's name, which members give in `runner.hello` (`MAITOOL_POOL_NAME`).
    pub name: String,
    /// The plugin id the pool serves; no runner may be configured with it.
    pub plugin: String,
    /// The address members dial (`0.0.0.0:7443`, `127.0.0.1:7443`). Off loopback, `tls`
    /// with a `client_ca_file` is required.
    pub listen: SocketAddr,
    /// SHA-256 digests (64 hexadecimal digits) of the tokens members may prove: the current
    /// one, and during a rotation the next one too; an entry may carry an expiry. Tokens
    /// themselves are never in the configuration.
    pub token_sha256: Vec<TokenEntry>,
    /// TLS 1.3; absent: plain TCP, on a loopback address only.
    #[serde(default)]
    pub tls: Option<PoolTls>,
    /// The plugin's settings: `capabilities` granted to every member, `config`.
    #[serde(default)]
    pub settings: PluginSettings,
}

/// The pool listener's TLS files, read again for every connection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoolTls {
    /// The host's certificate chain (PEM).
    pub cert_file: PathBuf,
    /// Its private key (PEM).
    pub key_file: PathBuf,
    /// The CA members' client certificates must chain to (PEM); required off loopback.
    #[serde(default)]
    pub client_ca_file: Option<PathBuf>,
}

/// What is wrong with a `[[pools]]` entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PoolConfigError {
    /// No name.
    #[error("pools[{index}].name must not be empty")]
    NoName {
        /// The entry's position.
        index: usize,
    },
    /// Two pools of one name.
    #[error("pools.{name}: duplicate pool name")]
    DuplicateName {
        /// The pool.
        name: String,
    },
    /// Two pools on one address.
    #[error("pools.{name}.listen: {listen} is also the address of pool {other}")]
    DuplicateAddress {
        /// The pool.
        name: String,
        /// The address.
        listen: SocketAddr,
        /// The pool that has it first.
        other: String,
    },
    /// An invalid plugin id.
    #[error("pools.{name}.plugin: {problem}")]
    Plugin {
        /// The pool.
        name: String,
        /// Why the id is invalid.
        problem: String,
    },
    /// The plugin id is configured for a runner or another pool too.
    #[error(
        "pools.{name}.plugin: plugin id {plugin:?} is also configured for {other}; a plugin id belongs to one runner or pool"
    )]
    PluginTaken {
        /// The pool.
        name: String,
        /// The plugin id.
        plugin: String,
        /// `runner X` or `pool Y`.
        other: String,
    },
    /// No token digest.
    #[error("pools.{name}.token_sha256 must list at least one digest")]
    NoToken {
        /// The pool.
        name: String,
    },
    /// A digest that is not 64 hexadecimal digits.
    #[error(
        "pools.{name}.token_sha256[{index}] is not a SHA-256 digest (64 hexadecimal digits); put the digest of the token there (`tr -d '[:space:]' < TOKEN_FILE | sha256sum`), never the token"
    )]
    BadDigest {
        /// The pool.
        name: String,
        /// The digest's position.
        index: usize,
    },
    /// An expiry that is not an RFC 3339 time.
    #[error("pools.{name}.token_sha256[{index}].expires: {problem}")]
    BadExpiry {
        /// The pool.
        name: String,
        /// The entry's position.
        index: usize,
        /// What is wrong with it.
        problem: String,
    },
    /// Plain TCP, or TLS without client certificates, on an address other machines reach.
    #[error(
        "pools.{name}: {listen} is not a loopback address, so [pools.tls] with cert_file, key_file and client_ca_file is required (client certificates off loopback)"
    )]
    NeedsClientCertificates {
        /// The pool.
        name: String,
        /// The address.
        listen: SocketAddr,
    },
    /// A grant that names no capability.
    #[error("pools.{name}.settings.capabilities: {problem}")]
    Grant {
        /// The pool.
        name: String,
        /// The grant checker's reason.
        problem: String,
    },
}

impl PoolConfig {
    /// The accepted tokens, decoded; the configuration was checked, so none fails.
    pub(crate) fn accepted_tokens(&self) -> Vec<AcceptedToken> {
        self.token_sha256
            .iter()
            .filter_map(|entry| entry.check().ok())
            .collect()
    }

    /// Relative TLS paths resolved against `base` (the configuration file's directory).
    pub fn resolve_paths(&mut self, base: &Path) {
        if let Some(tls) = &mut self.tls {
            for path in [&mut tls.cert_file, &mut tls.key_file]
                .into_iter()
                .chain(tls.client_ca_file.as_mut())
            {
                if path.is_relative() {
                    *path = base.join(&*path);
                }
            }
        }
    }
}

/// Checks every pool: names, addresses, plugin ids (none shared with a runner in
/// `runner_plugins`, given as `(plugin id, runner name)`), digests, TLS off loopback, grants.
pub fn check_pools<'a>(
    pools: &[PoolConfig],
    runner_plugins: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Result<(), PoolConfigError> {
    let mut owners: std::collections::HashMap<&str, String> = runner_plugins
        .into_iter()
        .map(|(plugin, runner)| (plugin, format!("runner {runner}")))
        .collect();
    let mut names = std::collections::HashSet::new();
    let mut addresses = std::collections::HashMap::new();
    for (index, pool) in pools.iter().enumerate() {
        let name = pool.name.trim();
        if name.is_empty() {
            return Err(PoolConfigError::NoName { index });
        }
        let named = || name.to_owned();
        if !names.insert(name) {
            return Err(PoolConfigError::DuplicateName { name: named() });
        }
        // Port 0 asks the system for a free port, different for each pool.
        if let Some(other) = (pool.listen.port() != 0)
            .then(|| addresses.insert(pool.listen, name))
            .flatten()
        {
            return Err(PoolConfigError::DuplicateAddress {
                name: named(),
                listen: pool.listen,
                other: other.to_owned(),
            });
        }
        crate::plugin::check_plugin_id(&pool.plugin).map_err(|problem| {
            PoolConfigError::Plugin {
                name: named(),
                problem: problem.to_string(),
            }
        })?;
        if let Some(other) = owners.insert(&pool.plugin, format!("pool {name}")) {
            return Err(PoolConfigError::PluginTaken {
                name: named(),
                plugin: pool.plugin.clone(),
                other,
            });
        }
        if pool.token_sha256.is_empty() {
            return Err(PoolConfigError::NoToken { name: named() });
        }
        for (index, entry) in pool.token_sha256.iter().enumerate() {
            match entry.check() {
                Ok(_) => {}
                Err(EntryProblem::Digest) => {
                    return Err(PoolConfigError::BadDigest {
                        name: named(),
                        index,
                    });
                }
                Err(EntryProblem::Expiry(problem)) => {
                    return Err(PoolConfigError::BadExpiry {
                        name: named(),
                        index,
                        problem,
                    });
                }
            }
        }
        let client_certificates = pool
            .tls
            .as_ref()
            .is_some_and(|tls| tls.client_ca_file.is_some());
        if !pool.listen.ip().is_loopback() && !client_certificates {
            return Err(PoolConfigError::NeedsClientCertificates {
                name: named(),
                listen: pool.listen,
            });
        }
        for grant in &pool.settings.capabilities {
            crate::plugin::check_grant(grant).map_err(|problem| PoolConfigError::Grant {
                name: named(),
                problem: problem.to_string(),
            })?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
