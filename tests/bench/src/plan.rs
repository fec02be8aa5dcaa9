//! How much each section measures: the full run, or a quick one for smoke tests.

/// Sample counts of one run.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Calls before any measurement, per path.
    pub warmup: usize,
    /// Alternating latency rounds (floor, then invoke).
    pub rounds: usize,
    /// Sequential calls per path and round.
    pub per_round: usize,
    /// Calls per throughput measurement.
    pub throughput_calls: usize,
    /// Throughput measurements per path and window (the median is reported).
    pub throughput_rounds: usize,
    /// Runner kills in the restart measurement.
    pub kills: usize,
    /// Cold starts of a host with 10 runners.
    pub cold_starts: usize,
    /// `maitool call` runs against `maitool serve`.
    pub cli_calls: usize,
    /// `list_tools` / `get_llm_definitions` repetitions over 10,000 tools.
    pub listings: usize,
    /// Routing rounds (each times `route_calls` invocations per registry).
    pub route_rounds: usize,
    /// Invocations per routing round.
    pub route_calls: usize,
    /// Sequential MCP calls per path and round.
    pub mcp_per_round: usize,
    /// Alternating MCP rounds.
    pub mcp_rounds: usize,
    /// Sequential calls to MaiBot's runner before its measurement.
    pub maibot_warmup: usize,
    /// Sequential calls to MaiBot's runner measured, under each host.
    pub maibot_calls: usize,
    /// Alternating rounds those calls are made in.
    pub maibot_rounds: usize,
    /// Calls per throughput measurement of MaiBot's runner (64 and 256 in flight, each host).
    pub maibot_throughput_calls: usize,
    /// Bare interpreter starts, cold starts and kills of MaiBot's runner (each about a
    /// second: the interpreter's start-up).
    pub maibot_starts: usize,
    /// Timings of each store operation per backend and round (section 9).
    pub store_samples: usize,
    /// Rounds of the store operations, alternating between the backends.
    pub store_rounds: usize,
    /// Connections with a call in flight on each, through the balancer.
    pub balancer_connections: usize,
    /// How long each balancer round runs.
    pub balancer_window: std::time::Duration,
    /// Rounds through the balancer, alternating between one host and three.
    pub balancer_rounds: usize,
    /// Where to write every sequential latency sample, if anywhere.
    pub samples_out: Option<std::path::PathBuf>,
}

impl Plan {
    /// The full benchmark (well under a minute on a 2-core machine).
    pub fn full() -> Plan {
        Plan {
            warmup: 2_000,
            rounds: 10,
            per_round: 2_000,
            throughput_calls: 100_000,
            throughput_rounds: 3,
            kills: 20,
            cold_starts: 5,
            cli_calls: 20,
            listings: 30,
            route_rounds: 9,
            route_calls: 20_000,
            mcp_per_round: 300,
            mcp_rounds: 6,
            maibot_warmup: 500,
            maibot_calls: 5_000,
            maibot_rounds: 5,
            maibot_throughput_calls: 3_000,
            maibot_starts: 7,
            store_samples: 300,
            store_rounds: 3,
            balancer_connections: 32,
            balancer_window: std::time::Duration::from_secs(3),
            balancer_rounds: 3,
            samples_out: None,
        }
    }

    /// A few of everything: checks that every section works, not how fast.
    pub fn quick() -> Plan {
        Plan {
            warmup: 50,
            rounds: 2,
            per_round: 50,
            throughput_calls: 1_000,
            throughput_rounds: 1,
            kills: 3,
            cold_starts: 1,
            cli_calls: 2,
            listings: 2,
            route_rounds: 1,
            route_calls: 200,
            mcp_per_round: 20,
            mcp_rounds: 1,
            maibot_warmup: 20,
            maibot_calls: 50,
            maibot_rounds: 1,
            maibot_throughput_calls: 512,
            maibot_starts: 1,
            store_samples: 5,
            store_rounds: 1,
            balancer_connections: 4,
            balancer_window: std::time::Duration::from_millis(300),
            balancer_rounds: 1,
            samples_out: None,
        }
    }
}
