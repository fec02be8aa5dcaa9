//! `[web]`: the operator console `maitool serve --web` serves.

use std::net::SocketAddr;

use serde::{Deserialize, Serialize};

/// `[web]`: where the operator console listens and who may use it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WebSection {
    /// The address `maitool serve` serves the console on; `--web ADDR` overrides it. Unset
    /// (and no `--web`): no console.
    pub listen: Option<SocketAddr>,
    /// The token a browser logs in with (and a script sends as `Authorization: Bearer`).
    /// Required when the console listens off loopback; write it as `${MAITOOL_WEB_TOKEN}`
    /// to keep it out of the file.
    pub token: Option<String>,
    /// Origins besides the console's own whose pages may change things (a reverse proxy's
    /// `https://ops.example.org`): `scheme://host[:port]`, port `*` for any.
    pub allowed_origins: Vec<String>,
}
