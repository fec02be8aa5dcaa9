//! The benchmark keys the project tracks: always in the JSON (null when their section
//! failed). One list for the benchmark and its smoke test (`tests/smoke.rs` includes this
//! file), so that the test checks exactly what the benchmark promises.

/// The tracked keys of every section but MaiBot's.
pub const TRACKED: &[&str] = &[
    "invoke_p50_ratio",
    "invoke_p99_ratio",
    "throughput_256_ratio",
    "restart_ms_median",
    "calls_failed_during_restart",
    "cold_start_10_runners_ms",
    "sandbox_restart_ratio",
    "sandbox_cold_start_ratio",
    "list_10k_tools_ms",
    "route_cost_ratio_10k_vs_1",
    "runner_idle_rss_kib",
    "host_10_runners_rss_kib",
    "mcp_overhead_ratio",
    "pool_tls_invoke_p50_ratio",
    "pool_3_vs_1_throughput_256_ratio",
];

/// The tracked keys of the MaiBot section, null when it is skipped: MaiBot's runner under
/// maitool's host (`maibot_runner_*`), under MaiBot's own host (`maibot_host_*`), and the
/// ratios between them.
pub const MAIBOT: &[&str] = &[
    "maibot_runner_invoke_p50_ratio",
    "maibot_runner_host_cpu_ratio",
    "maibot_runner_host_cpu_same_wait_ratio",
    "maibot_runner_invoke_p50_us",
    "maibot_runner_invoke_p99_us",
    "maibot_runner_host_cpu_us",
    "maibot_runner_rust_host_cpu_us",
    "maibot_runner_rust_slow_host_cpu_us",
    "maibot_runner_rust_slow_busy_us",
    "maibot_runner_calls_per_s_64",
    "maibot_runner_calls_per_s_256",
    "maibot_runner_rejected_256",
    "maibot_host_invoke_p50_us",
    "maibot_host_invoke_p99_us",
    "maibot_host_host_cpu_us",
    "maibot_host_calls_per_s_64",
    "maibot_host_calls_per_s_256",
    "maibot_host_rejected_256",
    "maibot_runner_restart_ms",
    "maibot_runner_python_start_ms",
    "maibot_runner_restart_overhead_ms",
    "maibot_runner_calls_failed_not_ready",
    "maibot_runner_cold_start_ms",
];

/// The tracked keys of the cluster section, null when it is skipped (no PostgreSQL, or for the
/// balancer's key no HAProxy): PostgreSQL against SQLite, and three hosts against one.
pub const CLUSTER: &[&str] = &[
    "store_pg_vs_sqlite_kv_set_p50_ratio",
    "store_pg_vs_sqlite_kv_get_p50_ratio",
    "store_pg_vs_sqlite_reply_p50_ratio",
    "store_pg_vs_sqlite_history_p50_ratio",
    "store_pg_vs_memory_session_call_p50_ratio",
    "balancer_3_vs_1_calls_s_ratio",
];
