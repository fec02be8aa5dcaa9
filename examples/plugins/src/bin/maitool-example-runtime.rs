//! Run-time behaviour a plugin author relies on, one tool each (used by the end-to-end tests
//! and a reference for authors):
//!
//! - `spin` busy-loops `ms` milliseconds in an async handler: it holds the runner's only
//!   thread, which is what [`Tool::blocking`] is for;
//! - `spin_blocking` busy-loops the same way in a [`Tool::blocking`] handler, on the
//!   blocking pool, while the runner keeps serving;
//! - `echo` returns its text;
//! - `panic_lines` panics with a two-line message;
//! - `remember` returns a result with a post-history message;
//! - `radar` reads a sensor that may be offline; `radar_switch` takes it offline or back,
//!   and the plugin withdraws or offers `radar` accordingly (`set_tool_available`).
//!
//! `on_load` and `on_config_update` log a line each, tagged with the plugin id.

use std::time::{Duration, Instant};

use maitool_sdk::prelude::*;

/// Arguments of `spin` and `spin_blocking`.
#[maitool_sdk::args]
struct SpinArgs {
    /// How long to keep the CPU busy, in milliseconds.
    ms: u64,
}

/// Arguments of `echo`.
#[maitool_sdk::args]
struct EchoArgs {
    /// Text to return.
    text: String,
}

/// Arguments of `remember`.
#[maitool_sdk::args]
struct RememberArgs {
    /// What to remind the model of after this turn.
    note: String,
}

/// Arguments of `radar_switch`.
#[maitool_sdk::args]
struct SwitchArgs {
    /// Whether the radar is online.
    online: bool,
    /// Why it is offline.
    #[serde(default)]
    reason: String,
}

/// No arguments.
#[maitool_sdk::args]
struct NoArgs {}

/// The plugin's configuration: only there for `on_config_update` to have something to report.
#[maitool_sdk::config]
#[derive(Default)]
#[serde(default)]
struct RuntimeConfig {
    /// A level, logged when it changes.
    level: u32,
}

impl PluginConfig for RuntimeConfig {}

/// Keeps the CPU busy for `ms` milliseconds without yielding.
fn busy(ms: u64) -> u64 {
    let until = Instant::now() + Duration::from_millis(ms);
    let mut spins = 0u64;
    while Instant::now() < until {
        spins = std::hint::black_box(spins.wrapping_add(1));
    }
    spins
}

fn main() {
    let runtime = Plugin::new("examples.runtime", "1.0.0")
        .description("Blocking handlers, panics, post-history messages and run-time availability.")
        .tool(Tool::new(
            "spin",
            "Busy-loop in an async handler (blocks the runner).",
            |a: SpinArgs, _ctx: ToolContext| async move {
                busy(a.ms);
                Ok(ToolOutput::text(format!("spun {} ms", a.ms)))
            },
        ))
        .tool(Tool::blocking(
            "spin_blocking",
            "Busy-loop on the blocking pool.",
            |a: SpinArgs, _ctx: ToolContext| {
                busy(a.ms);
                maitool_sdk::log::info!("spun {} ms on the blocking pool", a.ms);
                Ok(ToolOutput::text(format!("spun {} ms", a.ms)))
            },
        ))
        .tool(Tool::new(
            "echo",
            "Return the text.",
            |a: EchoArgs, _ctx: ToolContext| async move { Ok(ToolOutput::text(a.text)) },
        ))
        .tool(Tool::new(
            "panic_lines",
            "Panic with a two-line message.",
            |_a: NoArgs, _ctx: ToolContext| async move {
                if std::env::var("NEVER_SET_VARIABLE").is_err() {
                    panic!("first line of the panic\nsecond line of the panic");
                }
                Ok(ToolOutput::text("unreachable"))
            },
        ))
        .tool(Tool::new(
            "remember",
            "Add a note to the conversation after this turn.",
            |a: RememberArgs, ctx: ToolContext| async move {
                Ok(ToolOutput::text("noted").with_post_history_message(json!({
                    "role": "user",
                    "content": format!("[note] {}", a.note),
                    "message_id": format!("note-{}", ctx.call_id()),
                })))
            },
        ))
        .tool(Tool::new(
            "radar",
            "Read the radar.",
            |_a: NoArgs, _ctx: ToolContext| async move { Ok(ToolOutput::text("3 contacts")) },
        ))
        .tool(Tool::new(
            "radar_switch",
            "Take the radar offline or bring it back.",
            |a: SwitchArgs, ctx: ToolContext| async move {
                let changed = ctx
                    .host()
                    .set_tool_available("radar", a.online, &a.reason)
                    .await?;
                Ok(ToolOutput::text(format!(
                    "online={} changed={changed}",
                    a.online
                )))
            },
        ))
        .on_load(|_ctx| async move {
            maitool_sdk::log::info!("runtime plugin loading");
            Ok(())
        })
        .config::<RuntimeConfig>()
        .on_config_update(|update: ConfigUpdate<RuntimeConfig>, _ctx| async move {
            maitool_sdk::log::info!(
                level = update.config.level,
                "runtime plugin configuration updated"
            );
            Ok(())
        });
    maitool_sdk::run([runtime]);
}
