//! `Debug` of the server configuration without its secrets: the bearer token and the values
//! of `headers` and `env` (API keys live there) print as `<redacted>`, the keys stay, so a
//! logged or printed config still shows what is set without what it is set to.

use std::collections::BTreeMap;
use std::fmt;

use super::server_config::{McpAuthorization, McpServerConfig};

/// What a secret prints as.
const REDACTED: &str = "<redacted>";

/// Prints a string as `<redacted>`, or `""` when empty so an unset secret is still visible.
struct Secret<'a>(&'a str);

impl fmt::Debug for Secret<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("\"\"")
        } else {
            f.write_str(REDACTED)
        }
    }
}

/// A map whose values are secrets.
struct SecretValues<'a>(&'a BTreeMap<String, String>);

impl fmt::Debug for SecretValues<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.0.iter().map(|(k, v)| (k, Secret(v))))
            .finish()
    }
}

impl fmt::Debug for McpAuthorization {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpAuthorization")
            .field("mode", &self.mode)
            .field("bearer_token", &Secret(&self.bearer_token))
            .finish()
    }
}

impl fmt::Debug for McpServerConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Destructured so that a new field fails to compile here until it is classified.
        let McpServerConfig {
            name,
            enabled,
            transport,
            command,
            args,
            env,
            inherit_env,
            cwd,
            url,
            headers,
            http_timeout_seconds,
            read_timeout_seconds,
            idle_timeout_seconds,
            authorization,
            tool_prefix,
            protocol,
        } = self;
        f.debug_struct("McpServerConfig")
            .field("name", name)
            .field("enabled", enabled)
            .field("transport", transport)
            .field("command", command)
            .field("args", args)
            .field("env", &SecretValues(env))
            .field("inherit_env", inherit_env)
            .field("cwd", cwd)
            .field("url", url)
            .field("headers", &SecretValues(headers))
            .field("http_timeout_seconds", http_timeout_seconds)
            .field("read_timeout_seconds", read_timeout_seconds)
            .field("idle_timeout_seconds", idle_timeout_seconds)
            .field("authorization", authorization)
            .field("tool_prefix", tool_prefix)
            .field("protocol", protocol)
            .finish()
    }
}

#[cfg(test)]
mod tests;
