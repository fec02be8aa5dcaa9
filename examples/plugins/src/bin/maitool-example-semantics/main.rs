//! MaiBot 1.3's tool semantics in a Rust plugin (used by the end-to-end tests and a
//! reference for authors). Two plugins in one runner:
//!
//! `examples.semantics`:
//! - `send_sticker` is offered only on Telegram (`platforms`);
//! - `wrap_up` ends the planner round from its result (`ToolOutput::stop_after_execution`);
//!   `farewell` is declared to end it on every success (`Tool::stop_after_execution`);
//! - `whoami` says which plugin answered; the twin plugin declares a tool of the same name;
//! - `nap` sleeps `ms` milliseconds under a 300 ms timeout, to trip the circuit breaker;
//!   `decline` fails on its own (a failed result, which the breaker does not count);
//! - `greet` reads a typed configuration (`greeting`, `times` between 1 and 5): an invalid
//!   one pauses the plugin's tools until a valid one arrives.
//!
//! `examples.semantics_twin`:
//! - `whoami`, under its source-prefixed name since the first plugin has the name;
//! - `finish`, a name the built-in tools have: offered as `plugin_examples_semantics_twin_finish`;
//! - `echo`, a name the example MCP server has too (the MCP one is renamed, as MCP servers
//!   come after plugins).
//!
//! With `SEMANTICS_BAD_PLATFORMS=1` the twin declares `whoami` with an empty platform name,
//! which the host refuses: the twin fails to load, the first plugin is unaffected.

use std::time::Duration;

use maitool_sdk::prelude::*;

/// No arguments.
#[maitool_sdk::args]
struct NoArgs {}

/// Arguments of `send_sticker`.
#[maitool_sdk::args]
struct StickerArgs {
    /// The sticker set.
    set: String,
}

/// Arguments of `nap`.
#[maitool_sdk::args]
struct NapArgs {
    /// How long to sleep, in milliseconds.
    ms: u64,
}

/// The configuration `greet` reads.
#[maitool_sdk::config]
#[serde(default, deny_unknown_fields)]
struct GreetConfig {
    /// What to say.
    greeting: String,
    /// How many times, 1 to 5.
    times: u32,
}

impl Default for GreetConfig {
    fn default() -> Self {
        Self {
            greeting: "hello".to_owned(),
            times: 1,
        }
    }
}

impl PluginConfig for GreetConfig {
    fn validate(&self) -> Result<(), String> {
        if !(1..=5).contains(&self.times) {
            return Err(format!("times must be between 1 and 5, got {}", self.times));
        }
        Ok(())
    }
}

fn semantics() -> Plugin {
    Plugin::new("examples.semantics", "1.0.0")
        .description("Platforms, stop_after_execution, duplicate names, the circuit breaker and config errors.")
        .config::<GreetConfig>()
        .tool(
            Tool::new(
                "send_sticker",
                "Send a Telegram sticker set.",
                |a: StickerArgs, ctx: ToolContext| async move {
                    Ok(ToolOutput::text(format!("sent {} on {}", a.set, ctx.platform())))
                },
            )
            .platforms(["Telegram"])
            .core_tool(),
        )
        .tool(
            Tool::new(
                "wrap_up",
                "Wrap the conversation up; ends the round.",
                |_a: NoArgs, _ctx: ToolContext| async move {
                    Ok(ToolOutput::text("wrapped up").stop_after_execution())
                },
            )
            .core_tool(),
        )
        .tool(
            Tool::new(
                "farewell",
                "Say farewell; always ends the round.",
                |_a: NoArgs, _ctx: ToolContext| async move { Ok(ToolOutput::text("farewell")) },
            )
            .stop_after_execution()
            .core_tool(),
        )
        .tool(Tool::new(
            "whoami",
            "Say which plugin answered.",
            |_a: NoArgs, _ctx: ToolContext| async move { Ok(ToolOutput::text("examples.semantics")) },
        ))
        .tool(
            Tool::new(
                "nap",
                "Sleep for a while.",
                |a: NapArgs, _ctx: ToolContext| async move {
                    maitool_sdk::time::sleep(Duration::from_millis(a.ms)).await;
                    Ok(ToolOutput::text(format!("slept {} ms", a.ms)))
                },
            )
            .timeout(Duration::from_millis(300)),
        )
        .tool(Tool::new(
            "decline",
            "Always declines.",
            |_a: NoArgs, _ctx: ToolContext| async move {
                Err::<ToolOutput, _>(ToolError::new("declined"))
            },
        ))
        .tool(Tool::new(
            "greet",
            "Greet as configured.",
            |_a: NoArgs, ctx: ToolContext| async move {
                let config = ctx
                    .config::<GreetConfig>()
                    .ok_or_else(|| ToolError::new("no configuration"))?;
                let times = config.times as usize;
                Ok(ToolOutput::text(vec![config.greeting.as_str(); times].join(" ")))
            },
        ))
}

/// Arguments of `echo`.
#[maitool_sdk::args]
struct EchoArgs {
    /// Text to return.
    text: String,
}

fn twin() -> Plugin {
    let mut whoami = Tool::new(
        "whoami",
        "Say which plugin answered.",
        |_a: NoArgs, _ctx: ToolContext| async move { Ok(ToolOutput::text("examples.semantics_twin")) },
    );
    if std::env::var_os("SEMANTICS_BAD_PLATFORMS").is_some() {
        whoami = whoami.platforms(["qq", " "]);
    }
    Plugin::new("examples.semantics_twin", "1.0.0")
        .description("Tools whose names another source has first.")
        .tool(whoami)
        .tool(Tool::new(
            "echo",
            "Return the text, as the twin.",
            |a: EchoArgs, _ctx: ToolContext| async move {
                Ok(ToolOutput::text(format!("twin: {}", a.text)))
            },
        ))
        .tool(Tool::new(
            "finish",
            "The twin's own finish.",
            |_a: NoArgs, _ctx: ToolContext| async move { Ok(ToolOutput::text("twin finished")) },
        ))
}

fn main() {
    maitool_sdk::run([semantics(), twin()]);
}

#[cfg(test)]
mod tests;
