//! The benchmark's runner: one plugin with one `echo` tool, built with `maitool-sdk` alone so
//! its latency and memory are those of any plugin runner.
//!
//! `BENCH_PLUGIN_ID` (default `bench.echo`) and `BENCH_TOOL_NAME` (default `echo`) let one
//! executable serve as ten distinct runners with ten distinct tools; `BENCH_ECHO_BUSY_US`, or
//! `busy_us` in a call's arguments, makes it compute that long before it answers.

use maitool_sdk::prelude::*;

/// Arguments of `echo`.
#[derive(Deserialize, JsonSchema)]
#[serde(crate = "maitool_sdk::serde")]
#[schemars(crate = "maitool_sdk::schemars")]
struct EchoArgs {
    /// Text to send back.
    text: String,
    /// Microseconds to compute before answering, on top of `BENCH_ECHO_BUSY_US`: the MaiBot
    /// section makes this runner answer as slowly as MaiBot's, per call.
    #[serde(default)]
    busy_us: u64,
}

fn main() {
    let busy = std::time::Duration::from_micros(
        std::env::var("BENCH_ECHO_BUSY_US")
            .ok()
            .and_then(|us| us.parse().ok())
            .unwrap_or(0),
    );
    let plugin_id = std::env::var("BENCH_PLUGIN_ID").unwrap_or_else(|_| "bench.echo".to_owned());
    let tool_name = std::env::var("BENCH_TOOL_NAME").unwrap_or_else(|_| "echo".to_owned());
    let plugin = Plugin::new(plugin_id, "1.0.0")
        .description("Benchmark echo runner.")
        .tool(
            Tool::new(
                tool_name,
                "Send the text back.",
                move |args: EchoArgs, _ctx: ToolContext| async move {
                    let started = std::time::Instant::now();
                    let busy = busy + std::time::Duration::from_micros(args.busy_us);
                    while started.elapsed() < busy {
                        std::hint::spin_loop();
                    }
                    Ok(ToolOutput::text(args.text))
                },
            )
            .visibility(Visibility::Visible),
        );
    maitool_sdk::run([plugin]);
}
