//! `maitool definitions`: what an engine would send a model API for a context.

use std::process::ExitCode;

use crate::LoadedConfig;
use crate::builtin::Stage;
use crate::control::DefinitionsRequest;
use crate::control::views::{self, DefinitionFormat, Definitions};
use anyhow::{Result, anyhow};
use serde_json::Value;

use super::{OneShotWait, Target, target};
use crate::cli::args::{Cli, ContextArgs};
use crate::cli::output::outln;

pub(super) async fn definitions(
    cli: &Cli,
    config: LoadedConfig,
    format: DefinitionFormat,
    stage: Stage,
    context: &ContextArgs,
    json: bool,
) -> Result<ExitCode> {
    let request = DefinitionsRequest {
        context: context.availability(),
        format,
        stage,
    };
    let target = target(cli, config, OneShotWait::Listing).await?;
    let definitions = match &target {
        Target::Remote(client) => client.definitions(request).await.map_err(|e| anyhow!(e))?,
        Target::Local(host, _) => views::definitions(host, &request.context, format, stage).await?,
    };
    let code = target.finish().await;
    if json {
        outln!("{}", serde_json::to_string_pretty(&definitions)?)?;
    } else {
        print_definitions(&definitions)?;
    }
    Ok(code)
}

/// The function entries of a rendered `tools` value, whatever the format: Gemini nests them
/// in `functionDeclarations`, OpenAI Chat in `function`, the others are flat.
fn functions(tools: &Value) -> Vec<&Value> {
    let mut entries = Vec::new();
    for item in tools.as_array().into_iter().flatten() {
        match (item.get("functionDeclarations"), item.get("function")) {
            (Some(declarations), _) => {
                entries.extend(declarations.as_array().into_iter().flatten())
            }
            (None, Some(function)) => entries.push(function),
            (None, None) => entries.push(item),
        }
    }
    entries
}

/// `1 tool`, `2 tools`.
fn tools(count: usize) -> String {
    if count == 1 {
        "1 tool".to_owned()
    } else {
        format!("{count} tools")
    }
}

fn print_definitions(definitions: &Definitions) -> Result<()> {
    let exposed = functions(&definitions.tools);
    let text = |entry: &Value, key: &str| {
        entry
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let width = exposed
        .iter()
        .map(|entry| text(entry, "name").len())
        .max()
        .unwrap_or(0)
        .max(4);
    outln!(
        "exposed to the model ({}, {}):",
        definitions.format,
        tools(exposed.len())
    )?;
    for entry in &exposed {
        let description = text(entry, "description");
        outln!(
            "  {:width$}  {}",
            text(entry, "name"),
            description.lines().next().unwrap_or_default()
        )?;
    }
    match &definitions.deferred_reminder {
        Some(reminder) => {
            let searchable = exposed
                .iter()
                .any(|entry| text(entry, "name") == "tool_search");
            let until = if searchable {
                " until tool_search finds them"
            } else {
                "; without tool_search the model cannot call them"
            };
            outln!(
                "deferred ({}, listed in this reminder{until}):",
                tools(reminder.tools.len())
            )?;
            outln!("{}", reminder.text)?;
        }
        None => outln!("no deferred tools")?,
    }
    outln!("(--json prints the exact `tools` value)")?;
    Ok(())
}

#[cfg(test)]
mod tests;
