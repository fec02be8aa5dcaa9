//! Typed tools: dice and arithmetic, with a typed configuration.

use maitool_sdk::prelude::*;

/// Configuration of the dice plugin (`[runners.plugins."examples.dice".config]`).
#[maitool_sdk::config]
#[derive(Debug)]
#[serde(deny_unknown_fields, default)]
struct DiceConfig {
    /// The most dice one roll may throw.
    max_dice: u32,
    /// Seed for reproducible rolls; 0 seeds from the clock.
    seed: u64,
}

impl Default for DiceConfig {
    fn default() -> Self {
        Self {
            max_dice: 20,
            seed: 0,
        }
    }
}

impl PluginConfig for DiceConfig {
    fn validate(&self) -> Result<(), String> {
        if self.max_dice == 0 || self.max_dice > 1000 {
            return Err(format!(
                "max_dice must be between 1 and 1000, got {}",
                self.max_dice
            ));
        }
        Ok(())
    }
}

/// Arguments of `roll_dice`.
#[maitool_sdk::args]
#[serde(deny_unknown_fields)]
struct RollArgs {
    /// Sides of each die (2 to 1000).
    sides: u32,
    /// How many dice to roll (default 1).
    #[serde(default = "one")]
    count: u32,
}

fn one() -> u32 {
    1
}

/// An arithmetic operation.
#[maitool_sdk::args]
#[derive(Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum Operation {
    Add,
    Subtract,
    Multiply,
    Divide,
}

/// Arguments of `calculate`.
#[maitool_sdk::args]
#[serde(deny_unknown_fields)]
struct CalculateArgs {
    /// Left operand.
    a: f64,
    /// Right operand.
    b: f64,
    /// The operation.
    op: Operation,
}

/// Arguments of `echo`.
#[maitool_sdk::args]
struct EchoArgs {
    /// Text to send back.
    text: String,
    /// The chat platform. A parameter named like one of MaiBot's context keys is filled in
    /// by the host from the chat context when the model leaves it out.
    #[serde(default)]
    platform: String,
}

/// A small xorshift generator: enough for dice, no dependency.
fn next_random(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

fn main() {
    maitool_sdk::run([dice()]);
}

/// The plugin, apart from `main` so that its tests (`../tests/dice.rs`) run it in-process.
fn dice() -> Plugin {
    Plugin::new("examples.dice", "1.0.0")
        .name("Dice and arithmetic")
        .description("Rolls dice and does arithmetic; shows typed arguments and configuration.")
        .config::<DiceConfig>()
        .tool(
            Tool::new(
                "roll_dice",
                "Roll one or more dice and report each face and the total.",
                |args: RollArgs, ctx: ToolContext| async move {
                    let config = ctx.config::<DiceConfig>().unwrap_or_default();
                    if !(2..=1000).contains(&args.sides) {
                        return Err(ToolError::new(format!(
                            "sides must be between 2 and 1000, got {}",
                            args.sides
                        )));
                    }
                    if args.count == 0 || args.count > config.max_dice {
                        return Err(ToolError::new(format!(
                            "count must be between 1 and {}, got {}",
                            config.max_dice, args.count
                        )));
                    }
                    let mut state = if config.seed != 0 {
                        config.seed
                    } else {
                        std::time::SystemTime::now()
                            .duration_since(std::time::UNIX_EPOCH)
                            .map(|d| d.as_nanos() as u64)
                            .unwrap_or(7)
                            | 1
                    };
                    let faces: Vec<u32> = (0..args.count)
                        .map(|_| (next_random(&mut state) % args.sides as u64) as u32 + 1)
                        .collect();
                    let total: u32 = faces.iter().sum();
                    tracing_free_log(&ctx, &faces);
                    Ok(ToolOutput::text(format!("rolled {faces:?}, total {total}"))
                        .with_structured(json!({ "faces": faces, "total": total })))
                },
            )
            .core_tool()
            .timeout(std::time::Duration::from_secs(5)),
        )
        .tool(
            Tool::new(
                "calculate",
                "Add, subtract, multiply or divide two numbers.",
                |args: CalculateArgs, _ctx: ToolContext| async move {
                    let value = match args.op {
                        Operation::Add => args.a + args.b,
                        Operation::Subtract => args.a - args.b,
                        Operation::Multiply => args.a * args.b,
                        Operation::Divide if args.b == 0.0 => {
                            return Err(ToolError::new("division by zero"));
                        }
                        Operation::Divide => args.a / args.b,
                    };
                    Ok(ToolOutput::text(format!("{value}"))
                        .with_structured(json!({ "value": value })))
                },
            )
            .core_tool(),
        )
        .tool(
            Tool::new(
                "echo",
                "Send the text back, with the chat context the tool saw.",
                |args: EchoArgs, ctx: ToolContext| async move {
                    Ok(ToolOutput::text(args.text).with_structured(json!({
                        "platform_argument": args.platform,
                        "session_id": ctx.session_id(),
                        "stream_id": ctx.stream_id(),
                        "chat_id": ctx.chat_id(),
                        "group_id": ctx.group_id(),
                        "user_id": ctx.user_id(),
                        "platform": ctx.platform(),
                        "is_group_chat": ctx.is_group_chat(),
                        "reasoning": ctx.reasoning(),
                        "call_id": ctx.call_id(),
                    })))
                },
            )
            .core_tool(),
        )
}

/// Plugin logs go through `tracing` and reach the host's log tagged with the plugin id.
fn tracing_free_log(ctx: &ToolContext, faces: &[u32]) {
    maitool_sdk::log::info!(plugin = ctx.plugin_id(), "rolled {} dice", faces.len());
}

#[cfg(test)]
mod tests;
