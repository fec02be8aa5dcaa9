//! The environment a host passes to a runner it launches: one definition of each variable
//! name, for the host that sets them and the runners that read them.
//!
//! A maitool runner reads [`IPC_ADDRESS`], [`SESSION_TOKEN_FD`] and [`RUNNER_NAME`]. MaiBot's
//! own Python runner reads the names in [`maibot`], which its supervisor sets.
//!
//! The session token itself is never in a maitool runner's environment (where
//! `/proc/PID/environ` would show it for the runner's whole life): the host writes it into a
//! pipe and the runner inherits the pipe's read end, whose number is in [`SESSION_TOKEN_FD`].
//! A runner in any language reads that descriptor to end-of-file once, at start, and closes it.
//!
//! ```
//! use maitool_protocol::launch;
//!
//! // What a runner looks up first.
//! assert_eq!(launch::SESSION_TOKEN_FD, "MAITOOL_SESSION_TOKEN_FD");
//! assert_eq!(launch::IPC_ADDRESS, "MAITOOL_IPC_ADDRESS");
//! ```

/// The host's socket path.
pub const IPC_ADDRESS: &str = "MAITOOL_IPC_ADDRESS";
/// The number of an inherited file descriptor, the read end of a pipe holding the one-time
/// session token of this launch (ASCII, up to [`SESSION_TOKEN_MAX_LEN`] bytes, then
/// end-of-file). The runner reads it once, closes the descriptor, and presents the token in
/// `runner.hello`. The descriptor is 3 or higher.
pub const SESSION_TOKEN_FD: &str = "MAITOOL_SESSION_TOKEN_FD";
/// The longest session token a runner must accept from [`SESSION_TOKEN_FD`]; maitool's are
/// 64 hexadecimal characters.
pub const SESSION_TOKEN_MAX_LEN: usize = 1024;
/// The name the host gave this runner (for logs).
pub const RUNNER_NAME: &str = "MAITOOL_RUNNER_NAME";

/// What MaiBot's supervisor passes to its runner (`src/plugin_runtime/__init__.py` of the
/// `maibot` package), and how the runner is started.
pub mod maibot {
    /// The runner's module, started as `python -m RUNNER_MODULE`.
    pub const RUNNER_MODULE: &str = "src.plugin_runtime.runner.runner_main";
    /// The host's socket path (the runner removes it from its environment).
    pub const IPC_ADDRESS: &str = "MAIBOT_IPC_ADDRESS";
    /// The launch's session token (the runner removes it from its environment).
    pub const SESSION_TOKEN: &str = "MAIBOT_SESSION_TOKEN";
    /// Plugin roots joined with `:`; each plugin is a folder with `_manifest.json` and
    /// `plugin.py`.
    pub const PLUGIN_DIRS: &str = "MAIBOT_PLUGIN_DIRS";
    /// The runner group's name, in the runner's own logs.
    pub const RUNNER_GROUP: &str = "MAIBOT_RUNNER_GROUP";
    /// Which manifests' `plugin_type` to load; empty loads every type.
    pub const PLUGIN_TYPE_FILTER: &str = "MAIBOT_PLUGIN_TYPE_FILTER";
    /// Plugin roots loaded whatever the type filter says, joined with `:`.
    pub const TRUSTED_PLUGIN_DIRS: &str = "MAIBOT_TRUSTED_PLUGIN_DIRS";
    /// A JSON object `{plugin_id: reason}` of plugins the runner must not load.
    pub const BLOCKED_PLUGIN_REASONS: &str = "MAIBOT_BLOCKED_PLUGIN_REASONS";
    /// A JSON object `{plugin_id: version}` of dependencies satisfied outside this runner.
    pub const EXTERNAL_PLUGIN_IDS: &str = "MAIBOT_EXTERNAL_PLUGIN_IDS";
    /// The host application version manifests are checked against; unset, the runner uses
    /// its own package's version.
    pub const HOST_VERSION: &str = "MAIBOT_HOST_VERSION";
    /// `1` (or `true`, `yes`, `on`): the runner loads plugins whose manifest's
    /// `host_application` range excludes the host version (MaiBot's force-compatibility
    /// switch); read once, for every plugin of the runner.
    pub const FORCE_PLUGIN_COMPATIBILITY: &str = "MAIBOT_FORCE_PLUGIN_COMPATIBILITY";
    /// The instance directory of an installed (non-checkout) MaiBot, where the runner writes
    /// its logs; an installed runner refuses to start without it.
    pub const INSTANCE_DIR: &str = "MAIBOT_INSTANCE_DIR";
}

/// What a pool member reads from its environment: a runner started by an orchestrator
/// (Kubernetes, systemd, a shell), not by the host, that dials in to the hosts named in
/// [`ADDRESS`](pool::ADDRESS) and joins the pool named in [`NAME`](pool::NAME).
///
/// Files are re-read at every connection attempt, so a rotated token or certificate takes
/// effect at the next reconnect without a restart.
///
/// ```
/// use maitool_protocol::launch::pool;
///
/// // A plugin runs as a pool member when this variable is set.
/// assert_eq!(pool::ADDRESS, "MAITOOL_POOL_ADDRESS");
/// ```
pub mod pool {
    /// The hosts to dial, `host:port` separated by commas; each name is resolved to every
    /// address it has, and the member keeps one connection per address.
    pub const ADDRESS: &str = "MAITOOL_POOL_ADDRESS";
    /// The pool's name, as the host's `[[pools]]` section names it.
    pub const NAME: &str = "MAITOOL_POOL_NAME";
    /// A file holding the pool token (surrounding whitespace ignored).
    pub const TOKEN_FILE: &str = "MAITOOL_POOL_TOKEN_FILE";
    /// A PEM file of the certificate authorities the host's certificate must chain to. Set:
    /// the connection is TLS 1.3. Unset: plain TCP, which the member allows to loopback
    /// addresses only.
    pub const CA_FILE: &str = "MAITOOL_POOL_CA_FILE";
    /// The member's client certificate chain (PEM), which hosts off loopback require.
    pub const CERT_FILE: &str = "MAITOOL_POOL_CERT_FILE";
    /// The private key of [`CERT_FILE`] (PEM).
    pub const KEY_FILE: &str = "MAITOOL_POOL_KEY_FILE";
    /// The name the host's certificate must be valid for; unset: the host part of the
    /// address dialled.
    pub const SERVER_NAME: &str = "MAITOOL_POOL_SERVER_NAME";
    /// The member's name in `runner.hello`; unset: `<host name>-<pid>`.
    pub const MEMBER: &str = "MAITOOL_POOL_MEMBER";
    /// The member's build version in `runner.hello` (`runner_version`), for logs.
    pub const RUNNER_VERSION: &str = "MAITOOL_POOL_RUNNER_VERSION";
    /// An address (`0.0.0.0:8080`; port 0 picks one, which the member logs) where the member
    /// answers HTTP probes: `GET /livez` is 200 while its runtime answers, `GET /readyz` is
    /// 200 while a host has accepted it and it is not draining, 503 with the reason otherwise.
    /// Unset: no probe endpoint.
    pub const HEALTH_ADDRESS: &str = "MAITOOL_POOL_HEALTH_ADDRESS";
}
