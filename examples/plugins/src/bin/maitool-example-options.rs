//! The SDK's per-tool options and typed hooks, one tool each, for the end-to-end tests and
//! as a reference:
//!
//! * visibility: `pinned_clock` is a core tool (visible to the model on every turn),
//!   `clock` is deferred (the default: the model finds it with `tool_search`), and
//!   `retired_clock` is hidden (offered to no one; a call says it is hidden);
//! * an Action marked core: `wave`;
//! * typed outputs: `stats` returns the `Stats` it declares; `stats_wrong_type` declares
//!   `Stats` but returns a `Label`, and `stats_undeclared` declares nothing, so both fail;
//! * typed configuration updates: `greeting` answers with the configured greeting and what
//!   the last `on_config_update` saw. The hook refuses the greeting `refuse`.

use std::sync::Mutex;

use maitool_sdk::prelude::*;

/// The plugin's configuration.
#[maitool_sdk::config]
#[serde(default, deny_unknown_fields)]
struct OptionsConfig {
    /// What `greeting` answers.
    greeting: String,
}

impl Default for OptionsConfig {
    fn default() -> Self {
        Self {
            greeting: "hello".into(),
        }
    }
}

impl PluginConfig for OptionsConfig {
    fn validate(&self) -> Result<(), String> {
        if self.greeting.trim().is_empty() {
            return Err("greeting must not be empty".into());
        }
        Ok(())
    }
}

/// No arguments.
#[maitool_sdk::args]
struct NoArgs {}

/// The declared output of the `stats` tools.
#[maitool_sdk::output]
struct Stats {
    count: u32,
}

/// Not `Stats`.
#[maitool_sdk::output]
struct Label {
    label: String,
}

/// What the last `on_config_update` saw: plugin id, greeting and version.
static LAST_UPDATE: Mutex<String> = Mutex::new(String::new());

fn clock(name: &'static str) -> Tool {
    Tool::new(
        name,
        "Tell the time in seconds since the Unix epoch.",
        move |_: NoArgs, _ctx: ToolContext| async move {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or_default();
            Ok(ToolOutput::text(format!("{name}: {now}")))
        },
    )
}

fn main() {
    let options = Plugin::new("examples.options", "1.0.0")
        .description("One tool per SDK option: visibility, typed outputs, config updates.")
        .config::<OptionsConfig>()
        .tool(clock("pinned_clock").core_tool())
        .tool(clock("clock"))
        .tool(clock("retired_clock").visibility(Visibility::Hidden))
        .action(
            Action::new("wave", "Wave at the chat.", |_input: ActionInput| async move {
                (true, "waved".to_owned())
            })
            .core_tool(),
        )
        .tool(
            Tool::new(
                "stats",
                "Count to three.",
                |_: NoArgs, _ctx: ToolContext| async move { Ok(ToolOutput::typed(Stats { count: 3 })) },
            )
            .output::<Stats>(),
        )
        .tool(
            Tool::new(
                "stats_wrong_type",
                "Declares Stats, returns a Label.",
                |_: NoArgs, _ctx: ToolContext| async move {
                    Ok(ToolOutput::typed(Label {
                        label: "three".into(),
                    }))
                },
            )
            .output::<Stats>(),
        )
        .tool(Tool::new(
            "stats_undeclared",
            "Returns a typed Stats without declaring an output.",
            |_: NoArgs, _ctx: ToolContext| async move { Ok(ToolOutput::typed(Stats { count: 3 })) },
        ))
        .tool(
            Tool::new(
                "greeting",
                "The configured greeting and the last configuration update.",
                |_: NoArgs, ctx: ToolContext| async move {
                    let config = ctx
                        .config::<OptionsConfig>()
                        .ok_or_else(|| ToolError::new("no configuration"))?;
                    let last = LAST_UPDATE.lock().map(|l| l.clone()).unwrap_or_default();
                    Ok(ToolOutput::text(config.greeting.clone())
                        .with_structured(json!({ "greeting": config.greeting, "last_update": last })))
                },
            )
            .core_tool(),
        )
        .on_config_update(
            |update: ConfigUpdate<OptionsConfig>, ctx: PluginContext| async move {
                if update.config.greeting == "refuse" {
                    return Err(PluginError::new("the greeting `refuse` is refused"));
                }
                let seen = format!(
                    "{} got {} ({})",
                    ctx.plugin_id(),
                    update.config.greeting,
                    update.version
                );
                if let Ok(mut last) = LAST_UPDATE.lock() {
                    *last = seen;
                }
                Ok(())
            },
        );
    maitool_sdk::run([options]);
}
