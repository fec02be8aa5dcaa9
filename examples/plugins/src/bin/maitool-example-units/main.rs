//! APIs and a hook handler: `examples.units` converts lengths for other plugins through a
//! public API (`units.convert`), keeps its table behind a private one (`units.table`), and
//! hides the tools its configuration names from every session's listing with a handler of
//! the planner's request hook.

use maitool_sdk::api::Api;
use maitool_sdk::hook::{HookCall, HookHandler, HookOrder, HookReply};
use maitool_sdk::prelude::*;

/// Configuration (`[runners.plugins."examples.units".config]`).
#[maitool_sdk::config]
#[derive(Debug, Default)]
#[serde(deny_unknown_fields, default)]
struct UnitsConfig {
    /// Tools left out of every session's listing (the planner's request hook).
    hide_tools: Vec<String>,
}

impl PluginConfig for UnitsConfig {}

/// Metres per unit.
const UNITS: &[(&str, f64)] = &[("m", 1.0), ("km", 1000.0), ("ft", 0.3048), ("mi", 1609.344)];

/// `units.convert` arguments.
#[derive(Deserialize)]
#[serde(crate = "maitool_sdk::serde", deny_unknown_fields)]
struct Convert {
    value: f64,
    from: String,
    to: String,
}

fn metres_per(unit: &str) -> Result<f64, ToolError> {
    UNITS
        .iter()
        .find(|(name, _)| *name == unit)
        .map(|(_, metres)| *metres)
        .ok_or_else(|| ToolError::new(format!("unknown unit {unit}: use m, km, ft or mi")))
}

/// The arguments of `units_self_check`: none.
#[maitool_sdk::args]
struct NoArgs {}

fn main() {
    maitool_sdk::run([units()]);
}

/// The plugin, apart from `main` so that its tests run it in-process.
fn units() -> Plugin {
    Plugin::new("examples.units", "1.0.0")
        .name("Units")
        .description("Converts lengths for other plugins; hides configured tools from listings.")
        .capability("api.call")
        .config::<UnitsConfig>()
        .api(
            Api::new(
                "units.convert",
                "Converts a length between m, km, ft and mi.",
                |args: Convert, _ctx: PluginContext| async move {
                    let metres = args.value * metres_per(&args.from)?;
                    let value = metres / metres_per(&args.to)?;
                    Ok(json!({ "value": value, "unit": args.to }))
                },
            )
            .public(),
        )
        .api(Api::new(
            "units.table",
            "Metres per unit; private to this plugin.",
            |_: Value, _ctx: PluginContext| async move {
                Ok(UNITS
                    .iter()
                    .map(|(unit, metres)| json!({ "unit": unit, "metres": metres }))
                    .collect::<Vec<_>>())
            },
        ))
        .tool(
            Tool::new(
                "units_self_check",
                "Reads this plugin's own private unit table through the host.",
                |_: NoArgs, ctx: ToolContext| async move {
                    let table = ctx.api().call("units.table", json!({})).await?;
                    let count = table.as_array().map_or(0, Vec::len);
                    Ok(ToolOutput::text(format!("{count} units")).with_structured(table))
                },
            )
            .core_tool(),
        )
        .hook_handler(
            HookHandler::new(
                "hide_tools",
                "maisaka.planner.before_request",
                |mut call: HookCall, ctx: PluginContext| async move {
                    let hidden = ctx
                        .config::<UnitsConfig>()
                        .map(|config| config.hide_tools.clone())
                        .unwrap_or_default();
                    if let Some(Value::Array(tools)) = call.kwargs.get_mut("tool_definitions") {
                        tools.retain(|tool| {
                            let name = tool["function"]["name"].as_str().unwrap_or_default();
                            !hidden.iter().any(|hide| hide == name)
                        });
                    }
                    Ok(HookReply::proceed().with_kwargs(call.kwargs))
                },
            )
            .order(HookOrder::Early)
            .description("Hides the configured tools from every session's listing."),
        )
}

#[cfg(test)]
mod tests;
