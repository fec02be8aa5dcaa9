//! One executable, many runners: the plugin id and the tool names carry the runner name the
//! host launched it under, so several instances can serve side by side.
//!
//! The host gives each plugin id to one runner only and routes each tool name to one
//! component, so two runners of the same ordinary example would not both serve. Run as runner
//! `replica1`, this binary offers plugin `examples.replica.replica1` with the tools
//! `replica1_echo` (returns `text`) and `replica1_slow` (sleeps `ms` cooperatively, then
//! answers `slept N ms`). The chaos test runs several to load and kill many runners at once.
//! The tools are deferred, the default for plugin tools: the tests call them by name.

use std::time::Duration;

use maitool_sdk::prelude::*;

/// With `RECORD_CALLS=FILE`, both tools append each call id they run to FILE.
#[path = "../record_calls.rs"]
mod record_calls;

/// Arguments of `<runner>_echo`.
#[maitool_sdk::args]
struct EchoArgs {
    /// Text to return.
    text: String,
}

/// Arguments of `<runner>_slow`.
#[maitool_sdk::args]
struct SlowArgs {
    /// How long to sleep, in milliseconds.
    ms: u64,
}

fn main() {
    // Read before `run`, which removes the launch variables from the environment.
    let runner = std::env::var("MAITOOL_RUNNER_NAME")
        .ok()
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "replica".to_owned());
    let replica = Plugin::new(format!("examples.replica.{runner}"), "1.0.0")
        .description("Echo and sleep tools named after the runner.")
        .tool(Tool::new(
            format!("{runner}_echo"),
            "Return the text.",
            |a: EchoArgs, ctx: ToolContext| async move {
                record_calls::ran(ctx.call_id());
                Ok(ToolOutput::text(a.text))
            },
        ))
        .tool(Tool::new(
            format!("{runner}_slow"),
            "Sleep cooperatively, then answer.",
            |a: SlowArgs, ctx: ToolContext| async move {
                record_calls::ran(ctx.call_id());
                maitool_sdk::time::sleep(Duration::from_millis(a.ms)).await;
                Ok(ToolOutput::text(format!("slept {} ms", a.ms)))
            },
        ));
    maitool_sdk::run([replica]);
}
