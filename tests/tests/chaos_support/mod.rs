//! Support of the chaos load test: settings, the seeded RNG, the call plan, the tally of
//! outcomes, the MCP servers and the process checks.

pub mod ledger;
pub mod mcp;
pub mod monkey;
pub mod plan;
pub mod procs;
pub mod report;
pub mod tally;
pub mod watchdog;

use std::time::Duration;

use maitool_protocol::ToolExecutionContext;

/// Limit the host enforces on a plugin call (`default_tool_timeout_ms`; the tools used set
/// none of their own).
pub const PLUGIN_TIMEOUT: Duration = Duration::from_secs(2);
/// Limit the host enforces on an MCP call (`read_timeout_seconds`).
pub const MCP_TIMEOUT: Duration = Duration::from_secs(2);
/// How far past its limit a call may end before it counts as late. The host ends a call at
/// its limit with its own timer (the deadline sweeper for plugin calls, the MCP client's
/// timeout, and a call waiting for a restart waits only for what is left of its limit); what
/// this absorbs is the scheduling of 256 calls on two busy cores, whose p99 latency is tens
/// of milliseconds in release.
pub const LATE_MARGIN: Duration = Duration::from_millis(250);
/// Past its limit plus this, a call counts as lost (no result at all) and is abandoned.
pub const LOST_AFTER: Duration = Duration::from_secs(15);
/// Calls kept in flight, over [`DRIVERS`] tasks.
pub const IN_FLIGHT: usize = 256;
/// Driver tasks.
pub const DRIVERS: usize = 8;

/// The context of every call: a chat stream, which the legacy Action needs as its `chat_id`.
pub fn context() -> ToolExecutionContext {
    ToolExecutionContext {
        session_id: "chaos".into(),
        stream_id: "chaos-stream".into(),
        platform: "test".into(),
        ..ToolExecutionContext::default()
    }
}

/// Run settings, from the environment.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// Calls to make (`MAITOOL_CHAOS_CALLS`).
    pub calls: u64,
    /// RNG seed (`MAITOOL_CHAOS_SEED`, decimal or 0x-hex).
    pub seed: u64,
}

impl Settings {
    /// Reads the environment. A debug build defaults to fewer calls so that the plain
    /// `cargo test --workspace` stays bounded; release defaults to 100,000.
    pub fn from_env() -> Settings {
        let default_calls = if cfg!(debug_assertions) {
            30_000
        } else {
            100_000
        };
        let calls = match std::env::var("MAITOOL_CHAOS_CALLS") {
            Ok(text) => text
                .trim()
                .parse()
                .unwrap_or_else(|_| panic!("MAITOOL_CHAOS_CALLS must be a number, got {text:?}")),
            Err(_) => default_calls,
        };
        let seed = match std::env::var("MAITOOL_CHAOS_SEED") {
            Ok(text) => {
                let text = text.trim();
                let parsed = match text.strip_prefix("0x") {
                    Some(hex) => u64::from_str_radix(hex, 16),
                    None => text.parse(),
                };
                parsed
                    .unwrap_or_else(|_| panic!("MAITOOL_CHAOS_SEED must be a number, got {text:?}"))
            }
            Err(_) => 0x6d61_6974_6f6f_6c21,
        };
        assert!(calls > 0, "MAITOOL_CHAOS_CALLS must be at least 1");
        Settings { calls, seed }
    }
}

/// SplitMix64: small, seedable, and good enough to pick tools and victims.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..bound`.
    pub fn below(&mut self, bound: u64) -> u64 {
        self.next() % bound
    }
}
