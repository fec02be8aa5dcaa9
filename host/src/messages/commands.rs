//! Running the command a message matched: the hooks around it, `plugin.invoke_command` with
//! MaiBot's arguments, and its answer read as `(success, text, intercept)`.

use std::sync::Arc;
use std::time::Duration;

use maitool_protocol::JsonObject;
use maitool_protocol::command_match::{CommandMatch, MatchedBy};
use maitool_protocol::wire::message_flow::{CommandArgs, CommandReply};
use maitool_protocol::wire::methods::{InvokePayload, InvokeResultPayload, names};
use maitool_protocol::{ToolExecutionContext, python_truth};
use serde_json::Value;

use super::MessageFlow;
use super::hooks::names as hook_names;
use super::outcome::{CommandRun, MessageOutcome};
use crate::plugin::{ComponentEntry, Trigger};

/// What running the command decided for the message.
pub(super) enum CommandEffect {
    /// The message goes on to `on_message`.
    Continue,
    /// The message stops here (stored as a command message).
    Intercepted,
}

impl MessageFlow {
    /// Runs `entry`, which `hit` matched, for the message `dict` in `context`; records the run
    /// in `outcome` and leaves `dict` as the hooks changed it.
    pub(super) async fn run_command(
        &self,
        entry: Arc<ComponentEntry>,
        hit: CommandMatch,
        dict: &mut JsonObject,
        context: &ToolExecutionContext,
        outcome: &mut MessageOutcome,
    ) -> CommandEffect {
        let (declared_intercept, operator_only) = match &entry.trigger {
            Trigger::Command(command) => (command.intercepts, command.operator_only),
            _ => (false, false),
        };
        dict.insert("is_command".into(), true.into());
        let mut run = CommandRun {
            full_name: entry.full_name.clone(),
            plugin_id: entry.plugin_id.clone(),
            matched_by: match &hit.by {
                MatchedBy::Pattern => "pattern".to_owned(),
                MatchedBy::Alias(alias) => format!("alias {alias}"),
            },
            matched_groups: hit.groups,
            ..CommandRun::default()
        };

        if operator_only {
            let bot = self.plugins.capabilities().bot_config();
            if let Some(refusal) = super::permission::refusal(
                &bot,
                &entry.full_name,
                &context.platform,
                &context.user_id,
                &context.stream_id,
            ) {
                // MaiBot's rule: the message, a command all the same, stops here.
                run.error = Some(refusal);
                run.intercepted = true;
                outcome.command = Some(run);
                return CommandEffect::Intercepted;
            }
        }

        let mut kwargs = JsonObject::new();
        kwargs.insert("command_name".into(), entry.name.clone().into());
        kwargs.insert("plugin_id".into(), entry.plugin_id.clone().into());
        kwargs.insert(
            "matched_groups".into(),
            Value::Object(run.matched_groups.clone()),
        );
        let before = self
            .hook(hook_names::COMMAND_BEFORE_EXECUTE, dict, kwargs, outcome)
            .await;
        let Some(before) = before else {
            // Aborted: the command does not run, and the message, a command all the same,
            // stops (MaiBot).
            run.intercepted = true;
            outcome.command = Some(run);
            return CommandEffect::Intercepted;
        };
        if let Some(Value::Object(groups)) = before.get("matched_groups") {
            run.matched_groups = groups.clone();
        }

        let text = dict
            .get("processed_plain_text")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let group_id = context.group_id.clone();
        let args = CommandArgs {
            text,
            stream_id: context.stream_id.clone(),
            group_id,
            platform: context.platform.clone(),
            user_id: context.user_id.clone(),
            is_local_operator: false,
            matched_groups: run.matched_groups.clone(),
            message: Some(without_bytes(dict)),
            // Left out: plugins read their own configuration (a MaiBot legacy command falls
            // back to it), and the host holds only the operator's part of it.
            plugin_config: None,
        };
        let payload = InvokePayload {
            component_name: entry.name.clone(),
            args: args.into_object(),
            context: Some(context.clone()),
            call_id: String::new(),
        };
        let timeout = Duration::from_millis(if entry.timeout_ms > 0 {
            entry.timeout_ms
        } else {
            self.plugins.default_component_timeout_ms()
        });
        let answer = self
            .plugins
            .call_component::<InvokeResultPayload>(
                &entry.plugin_id,
                names::INVOKE_COMMAND,
                &payload,
                timeout,
            )
            .await;
        run.ran = true;
        match answer {
            Ok(answer) => {
                let reply = CommandReply::from_answer(&answer);
                run.success = reply.success;
                run.reply = reply.text;
                run.intercepted = reply.intercept.unwrap_or(declared_intercept);
            }
            Err(err) => {
                // MaiBot's rule: a command that failed to run stops the message.
                let error = format!("command {} of plugin {} {err}", entry.name, entry.plugin_id);
                tracing::warn!(command = %entry.full_name, "{error}");
                run.error = Some(error);
                run.success = false;
                run.intercepted = true;
            }
        }

        let mut kwargs = JsonObject::new();
        kwargs.insert("command_name".into(), entry.name.clone().into());
        kwargs.insert("plugin_id".into(), entry.plugin_id.clone().into());
        kwargs.insert(
            "matched_groups".into(),
            Value::Object(run.matched_groups.clone()),
        );
        kwargs.insert("success".into(), run.success.into());
        kwargs.insert(
            "response".into(),
            run.reply.clone().map(Value::String).unwrap_or(Value::Null),
        );
        kwargs.insert(
            "intercept_message_level".into(),
            u8::from(run.intercepted).into(),
        );
        kwargs.insert("continue_process".into(), (!run.intercepted).into());
        if let Some(after) = self
            .hook(hook_names::COMMAND_AFTER_EXECUTE, dict, kwargs, outcome)
            .await
        {
            if let Some(success) = after.get("success") {
                run.success = python_truth(success);
            }
            if let Some(response) = after.get("response") {
                run.reply = match response {
                    Value::Null => None,
                    Value::String(text) => Some(text.clone()),
                    other => Some(other.to_string()),
                };
            }
            if let Some(go_on) = after.get("continue_process") {
                run.intercepted = !python_truth(go_on);
            } else if let Some(level) = after.get("intercept_message_level") {
                run.intercepted = python_truth(level);
            }
        }
        let effect = if run.intercepted {
            CommandEffect::Intercepted
        } else {
            CommandEffect::Continue
        };
        outcome.command = Some(run);
        effect
    }
}

/// The message dict without image bytes: what MaiBot gives a command.
fn without_bytes(dict: &JsonObject) -> JsonObject {
    let mut dict = dict.clone();
    if let Some(Value::Array(segments)) = dict.get_mut("raw_message") {
        for segment in segments {
            if let Value::Object(segment) = segment {
                segment.remove("binary_data_base64");
            }
        }
    }
    dict
}
