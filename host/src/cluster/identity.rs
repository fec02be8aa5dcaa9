//! [`HostIdentity`]: what names one serving process in the `hosts` table.

use std::time::{SystemTime, UNIX_EPOCH};

/// One serving process: its row's key and the facts that do not change while it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostIdentity {
    /// `HOSTNAME:PID:RANDOM`: unique per process, also across a restart that reuses the pid
    /// (a container's pid is often 1).
    pub id: String,
    /// The machine's (a Kubernetes pod's) host name.
    pub hostname: String,
    /// The process id.
    pub pid: u32,
    /// This maitool's version.
    pub version: String,
    /// When this process started, in Unix milliseconds (its own clock).
    pub started_at_ms: i64,
    /// Where MCP clients reach it (`[cluster] advertise`, else the `--mcp-http` URL).
    pub mcp_address: Option<String>,
}

impl HostIdentity {
    /// This process, serving MCP at `mcp_address` if anywhere.
    pub fn of_this_process(mcp_address: Option<String>) -> HostIdentity {
        let hostname = nix::unistd::gethostname()
            .ok()
            .and_then(|name| name.into_string().ok())
            .filter(|name| !name.is_empty())
            .unwrap_or_else(|| "unknown-host".to_owned());
        let pid = std::process::id();
        let mut bytes = [0u8; 4];
        // A clash of ids needs the same host name, pid and these bytes: with the fallback
        // below, the same host name, pid and start millisecond.
        let started_at_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| since.as_millis() as i64);
        if getrandom::fill(&mut bytes).is_err() {
            bytes = (started_at_ms as u32).to_be_bytes();
        }
        let suffix: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        HostIdentity {
            id: format!("{hostname}:{pid}:{suffix}"),
            hostname,
            pid,
            version: env!("CARGO_PKG_VERSION").to_owned(),
            started_at_ms,
            mcp_address,
        }
    }
}
