//! One executable, many runners: the plugin id and the tool names carry the runner name the
//! host launched it under, so several instances can serve side by side.
//!
//! The host gives each plugin id to one runner only and routes each tool name to one
//! component, so two runners of the same ordinary example would not both serve. Run as runner
//! `replica1`, this binary offers plugin `examples.replica.replica1` with the tools
//! `replica1_echo` (returns `text`) and `replica1_slow` (sleeps `ms` cooperatively, then
//! answers `slept N ms`). The chaos test runs several to load and kill many runners at once.
//! The tools are deferred, the default for plugin tools: the tests call them by name. With
//! `REPLICA_VARIANT=2` it is version 2.0.0 (the pool test's rollout): `<runner>_slow` is
//! described otherwise and `<runner>_v2` is new.

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
    // REPLICA_VARIANT=2: version 2.0.0 of the plugin, as in a rollout: the sleep tool is
    // described otherwise and a third tool is new; the echo tool is unchanged.
    let second = std::env::var("REPLICA_VARIANT").is_ok_and(|variant| variant == "2");
    let (version, slow_description) = if second {
        ("2.0.0", "Sleep cooperatively, then answer (version 2).")
    } else {
        ("1.0.0", "Sleep cooperatively, then answer.")
    };
    let mut replica = Plugin::new(format!("examples.replica.{runner}"), version)
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
            slow_description,
            |a: SlowArgs, ctx: ToolContext| async move {
                record_calls::ran(ctx.call_id());
                maitool_sdk::time::sleep(Duration::from_millis(a.ms)).await;
                Ok(ToolOutput::text(format!("slept {} ms", a.ms)))
            },
        ));
    if second {
        replica = replica.tool(Tool::new(
            format!("{runner}_v2"),
            "Return the text, saying version 2 answers (version 2 only).",
            |a: EchoArgs, ctx: ToolContext| async move {
                record_calls::ran(ctx.call_id());
                Ok(ToolOutput::text(format!("version 2: {}", a.text)))
            },
        ));
    }
    maitool_sdk::run([replica]);
}
