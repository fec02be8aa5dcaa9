//! `maitool message`: a chat message through the host's message flow, and what happened.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Result;

use super::{OneShotWait, Target, target};
use crate::LoadedConfig;
use crate::cli::args::{Cli, MessageArgs};
use crate::cli::output::outln;
use crate::cli::{EXIT_FAILED, EXIT_USAGE};
use crate::messages::{HandlerRun, MessageOutcome};
use maitool_protocol::wire::message_flow::EventType;

/// How long a one-shot host waits for the event handlers it started without waiting, before
/// it stops their runners.
const SETTLE_LIMIT: Duration = Duration::from_secs(10);

pub(super) async fn message(
    cli: &Cli,
    config: LoadedConfig,
    args: &MessageArgs,
) -> Result<ExitCode> {
    let target = target(cli, config, OneShotWait::Call).await?;
    let answer = match &target {
        Target::Remote(client) => client
            .message(args.message())
            .await
            .map_err(|err| err.message),
        Target::Local(host, _) => {
            let outcome = host
                .messages()
                .receive(args.message())
                .await
                .map_err(|err| crate::error_text::chain(&err));
            host.messages().settle(SETTLE_LIMIT).await;
            outcome
        }
    };
    // The message's own outcome is the exit status; a source that failed to start is named
    // on stderr.
    let _ = target.finish().await;
    let outcome = match answer {
        Ok(outcome) => outcome,
        Err(refusal) => {
            eprintln!("maitool: message refused: {refusal}");
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    };
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&outcome)?)?;
    } else {
        print_outcome(&outcome)?;
    }
    // A command that failed, or could not run (its runner failed, the sender may not).
    let command_failed = outcome
        .command
        .as_ref()
        .is_some_and(|c| c.error.is_some() || (c.ran && !c.success));
    Ok(if command_failed {
        ExitCode::from(EXIT_FAILED)
    } else {
        ExitCode::SUCCESS
    })
}

fn print_outcome(outcome: &MessageOutcome) -> Result<()> {
    let fate = if outcome.stored {
        "stored".to_owned()
    } else {
        format!(
            "not stored ({})",
            outcome.not_stored_because.as_deref().unwrap_or("dropped")
        )
    };
    outln!(
        "message {} in stream {}: {fate}",
        outcome.message_id,
        outcome.stream_id
    )?;
    for hook in &outcome.hooks {
        let what = match (&hook.aborted_by, hook.modified) {
            (Some(by), _) => format!("aborted by {by}"),
            (None, true) => "changed the message".to_owned(),
            (None, false) => "ran".to_owned(),
        };
        outln!("  hook {}: {what}", hook.hook)?;
        for error in &hook.errors {
            outln!("    error: {error}")?;
        }
    }
    let before_command = |run: &&HandlerRun| run.event == EventType::OnMessagePreProcess;
    for run in outcome.handlers.iter().filter(before_command) {
        print_handler(run)?;
    }
    if let Some(command) = &outcome.command {
        let groups = if command.matched_groups.is_empty() {
            String::new()
        } else {
            format!(
                " {}",
                serde_json::Value::Object(command.matched_groups.clone())
            )
        };
        let status = if let Some(error) = &command.error {
            error.clone()
        } else if !command.ran {
            "did not run".to_owned()
        } else if command.success {
            "succeeded".to_owned()
        } else {
            "failed".to_owned()
        };
        let intercepted = if command.intercepted {
            ", the message stops here"
        } else {
            ", the message goes on"
        };
        outln!(
            "  command {} (by {}{groups}): {status}{intercepted}",
            command.full_name,
            command.matched_by
        )?;
        if let Some(reply) = &command.reply {
            outln!("    reply: {reply}")?;
        }
    }
    for run in outcome.handlers.iter().filter(|run| !before_command(run)) {
        print_handler(run)?;
    }
    if let Some(stop) = &outcome.stopped
        && stop.at != "command"
    {
        outln!("  stopped at {} by {}", stop.at, stop.by)?;
    }
    for sent in &outcome.sent {
        outln!(
            "  sent by {} ({}): {}",
            sent.plugin_id,
            sent.kind,
            sent.text
        )?;
    }
    let changed = outcome.handlers.iter().any(|run| run.modified)
        || outcome.hooks.iter().any(|hook| hook.modified);
    if changed {
        outln!("  text after changes: {}", outcome.text)?;
    }
    Ok(())
}

fn print_handler(run: &HandlerRun) -> Result<()> {
    let what = if !run.waited {
        "started (not waited for)".to_owned()
    } else if let Some(error) = &run.error {
        format!("failed: {error}")
    } else if !run.continued {
        "stopped the message".to_owned()
    } else if run.modified {
        "changed the message".to_owned()
    } else if run.success == Some(false) {
        "failed (the message went on)".to_owned()
    } else {
        "let it through".to_owned()
    };
    outln!(
        "  {} {} (weight {}): {what}",
        run.event,
        run.handler,
        run.weight
    )?;
    Ok(())
}
