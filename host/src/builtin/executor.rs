//! The tool-call executor: from a model turn's raw tool calls to the messages that go into
//! history (MaiBot's `_handle_tool_calls`).
//!
//! Calls run **in order**, one at a time, through the [`ToolRegistry`]. A result whose metadata
//! has `pause_execution` stops the batch; the remaining calls get a "skipped" result so every
//! call id of the turn still has an answer (model APIs require one). A successful result with
//! `stop_after_execution` (MaiBot 1.3, MaiBot#2023) lets the rest of the batch run, then ends
//! the planner round: the engine's `end_round` is called once, after the last call, and the
//! outcome says which call asked ([`TurnOutcome::stopped_by`]); a pause in the same batch
//! wins, as in MaiBot. Any tool other than
//! `wait` ends a streak of waits. A call to a tool that exists but was not exposed to the
//! model (an undiscovered deferred tool) still runs; when it fails, its message tells the
//! model to look the tool up with `tool_search` first.

use std::collections::HashSet;
use std::sync::Arc;

use crate::llm::{ModelApi, ToolCallParseError, parse_tool_calls};
use maitool_protocol::{ToolExecutionContext, ToolExecutionResult, ToolInvocation};
use serde_json::Value;

use crate::registry::ToolRegistry;

use super::engine::{EngineBridge, ToolMedia, ToolResultRecord};
use super::exposure::ToolExposure;
use super::media::{media_list_block, split_media};

/// Appended to the failure of a tool the model was not shown.
pub const NOT_EXPOSED_HINT: &str =
    "Search for the tool with tool_search to see its parameters, then retry.";

/// The reason given to the engine's `end_round` when a result asked to stop after execution.
pub const STOP_AFTER_EXECUTION_REASON: &str = "stop_after_execution";

/// Tools whose paused result the engine writes to history only when the pause ends (MaiBot's
/// `HISTORY_DEFERRED_TOOL_RESULT_NAMES`).
const HISTORY_DEFERRED_TOOLS: &[&str] = &["wait"];

/// Why a turn's calls could not run at all.
#[derive(Debug, thiserror::Error)]
pub enum ExecutorError {
    /// The raw tool calls do not parse; none was run.
    #[error("cannot read the model's tool calls: {0}")]
    Parse(#[from] ToolCallParseError),
}

/// What became of one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallStatus {
    /// It ran and succeeded.
    Succeeded,
    /// It ran and failed.
    Failed,
    /// It did not run: an earlier call paused execution.
    Skipped,
}

/// The tool-result message of one call, for history.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResultMessage {
    /// The model's call id (generated when the model gave none).
    pub call_id: String,
    /// The tool called.
    pub tool_name: String,
    /// What became of it.
    pub status: CallStatus,
    /// The text for history: the result's history content, hints, and the media list block.
    pub content: String,
    /// Ids of this result's media items in [`TurnOutcome::media`].
    pub media_ids: Vec<String>,
    /// The engine should write this message only when the pause it started ends (`wait`).
    pub history_deferred: bool,
    /// The invocation as run.
    pub invocation: ToolInvocation,
    /// The raw result; `None` for a skipped call.
    pub result: Option<ToolExecutionResult>,
}

/// Everything one turn's calls produced.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TurnOutcome {
    /// One message per call, in call order, skipped calls included.
    pub messages: Vec<ToolResultMessage>,
    /// Media items split out of the results, in order, to attach as user messages.
    pub media: Vec<ToolMedia>,
    /// Messages the tools asked to append after all results, de-duplicated by message id.
    pub post_history: Vec<Value>,
    /// The call id whose result paused execution, if any.
    pub paused_by: Option<String>,
    /// A result asked to end the round (`finish`, or a `stop_after_execution` result).
    pub finish_round: bool,
    /// The call id of the first successful result with `stop_after_execution`: the round
    /// ended after the turn's calls ran (the engine was told through `end_round`). `None`
    /// when a call paused execution: the pause decides how the batch ends.
    pub stopped_by: Option<String>,
    /// A result asked the session to rest (`wait` at its limit).
    pub wait_rest: bool,
}

impl TurnOutcome {
    /// The messages of calls that ran.
    pub fn executed(&self) -> impl Iterator<Item = &ToolResultMessage> {
        self.messages
            .iter()
            .filter(|message| message.status != CallStatus::Skipped)
    }
}

/// The id of a post-history message, for de-duplication.
fn message_key(message: &Value) -> Option<String> {
    ["message_id", "msg_id", "id"]
        .iter()
        .find_map(|key| match message.get(key)? {
            Value::String(id) if !id.is_empty() => Some(id.clone()),
            Value::Number(id) => Some(id.to_string()),
            _ => None,
        })
}

fn flag(result: &ToolExecutionResult, key: &str) -> bool {
    result
        .metadata
        .get(key)
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

/// A call id for a call the model gave none.
fn fresh_call_id() -> String {
    let mut bytes = [0u8; 8];
    if getrandom::fill(&mut bytes).is_err() {
        bytes = super::store::now().to_bits().to_le_bytes();
    }
    format!("call_{:016x}", u64::from_le_bytes(bytes))
}

/// Runs a model turn's tool calls (the source of `builtin/executor.rs` opens with how).
#[derive(Clone)]
pub struct ToolCallExecutor {
    registry: Arc<ToolRegistry>,
    engine: Arc<dyn EngineBridge>,
}

impl std::fmt::Debug for ToolCallExecutor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolCallExecutor")
            .field("registry", &self.registry)
            .finish_non_exhaustive()
    }
}

impl ToolCallExecutor {
    /// An executor running calls through `registry`, keeping wait streaks, media and records
    /// with `engine`.
    pub fn new(registry: Arc<ToolRegistry>, engine: Arc<dyn EngineBridge>) -> Self {
        Self { registry, engine }
    }

    /// Parses `raw` (an answer of `api`, or its tool calls) and runs the calls. `exposure` is
    /// the tool set the model was given; without it every tool counts as exposed.
    pub async fn execute_raw(
        &self,
        api: ModelApi,
        raw: &Value,
        ctx: &ToolExecutionContext,
        exposure: Option<&ToolExposure>,
    ) -> Result<TurnOutcome, ExecutorError> {
        let calls = parse_tool_calls(api, raw)?;
        Ok(self.execute(calls, ctx, exposure).await)
    }

    /// Runs parsed calls in order; the context's session, stream and reasoning fill the
    /// invocations.
    pub async fn execute(
        &self,
        calls: Vec<ToolInvocation>,
        ctx: &ToolExecutionContext,
        exposure: Option<&ToolExposure>,
    ) -> TurnOutcome {
        let mut outcome = TurnOutcome::default();
        let mut seen_posts = HashSet::new();
        let mut calls = calls.into_iter();
        for mut invocation in calls.by_ref() {
            invocation.session_id = ctx.session_id.clone();
            invocation.stream_id = ctx.stream_id.clone();
            if invocation.reasoning.is_empty() {
                invocation.reasoning = ctx.reasoning.clone();
            }
            if invocation.call_id.is_empty() {
                invocation.call_id = fresh_call_id();
            }
            let message = self
                .run_one(invocation, ctx, exposure, &mut outcome, &mut seen_posts)
                .await;
            let pauses = message
                .result
                .as_ref()
                .is_some_and(ToolExecutionResult::pauses_execution);
            if pauses {
                outcome.paused_by = Some(message.call_id.clone());
            }
            if outcome.stopped_by.is_none()
                && message
                    .result
                    .as_ref()
                    .is_some_and(ToolExecutionResult::stops_after_execution)
            {
                outcome.stopped_by = Some(message.call_id.clone());
            }
            outcome.messages.push(message);
            if pauses {
                break;
            }
        }
        let paused_tool = outcome
            .messages
            .last()
            .map(|message| message.tool_name.clone())
            .unwrap_or_default();
        for mut invocation in calls {
            if invocation.call_id.is_empty() {
                invocation.call_id = fresh_call_id();
            }
            invocation.session_id = ctx.session_id.clone();
            invocation.stream_id = ctx.stream_id.clone();
            tracing::debug!(tool = %invocation.tool_name, call = %invocation.call_id, "skipping tool call after a pause");
            outcome.messages.push(ToolResultMessage {
                call_id: invocation.call_id.clone(),
                tool_name: invocation.tool_name.clone(),
                status: CallStatus::Skipped,
                content: format!("Skipped: {paused_tool} paused execution before this call ran."),
                media_ids: Vec::new(),
                history_deferred: false,
                invocation,
                result: None,
            });
        }
        if outcome.paused_by.is_some() {
            // A pause ends the batch its own way (MaiBot returns on it before the stop).
            outcome.stopped_by = None;
        }
        if outcome.stopped_by.is_some() {
            // As MaiBot's planner does: the batch has run; now the round ends.
            outcome.finish_round = true;
            if let Err(err) = self
                .engine
                .end_round(&ctx.session_id, STOP_AFTER_EXECUTION_REASON)
                .await
            {
                tracing::warn!(session = %ctx.session_id, error = %err, "could not end the round a tool asked to stop after");
            }
        }
        outcome
    }

    async fn run_one(
        &self,
        invocation: ToolInvocation,
        ctx: &ToolExecutionContext,
        exposure: Option<&ToolExposure>,
        outcome: &mut TurnOutcome,
        seen_posts: &mut HashSet<String>,
    ) -> ToolResultMessage {
        let session = ctx.session_id.as_str();
        if !HISTORY_DEFERRED_TOOLS.contains(&invocation.tool_name.as_str())
            && let Err(err) = self.engine.reset_consecutive_waits(session).await
        {
            tracing::warn!(session, error = %err, "could not reset the wait streak");
        }
        let mut result = self.registry.invoke(invocation.clone(), ctx).await;
        let exposed = exposure.is_none_or(|exposure| exposure.is_exposed(&invocation.tool_name));
        if !result.success && !exposed {
            let target = if result.error_message.trim().is_empty() {
                &mut result.content
            } else {
                &mut result.error_message
            };
            if !target.trim().is_empty() {
                target.push(' ');
            }
            target.push_str(NOT_EXPOSED_HINT);
        }
        let media = split_media(&invocation.call_id, &result.content_items);
        if !media.is_empty()
            && let Err(err) = self.engine.record_tool_media(session, &media).await
        {
            tracing::warn!(session, call = %invocation.call_id, error = %err, "could not keep tool result media");
        }
        let mut content = result.history_content();
        if content.is_empty() {
            content = if result.success {
                "Tool succeeded.".to_owned()
            } else {
                format!("Tool {} failed.", invocation.tool_name)
            };
        }
        // The hint must reach the model even when history shows the content, not the error.
        if !result.success && !exposed && !content.contains(NOT_EXPOSED_HINT) {
            content.push_str(&format!("\n{NOT_EXPOSED_HINT}"));
        }
        let block = media_list_block(&media);
        if !block.is_empty() {
            content.push('\n');
            content.push_str(&block);
        }
        let record = ToolResultRecord {
            session_id: ctx.session_id.clone(),
            stream_id: ctx.stream_id.clone(),
            call_id: invocation.call_id.clone(),
            tool_name: invocation.tool_name.clone(),
            arguments: invocation.arguments.clone(),
            success: result.success,
            content: content.clone(),
            error_message: result.error_message.clone(),
        };
        if let Err(err) = self.engine.record_tool_result(record).await {
            tracing::warn!(session, call = %invocation.call_id, error = %err, "could not record the tool result");
        }
        for post in &result.post_history_messages {
            let fresh = message_key(post).is_none_or(|key| seen_posts.insert(key));
            if fresh {
                outcome.post_history.push(post.clone());
            }
        }
        outcome.finish_round |= flag(&result, "finish_round");
        outcome.wait_rest |= flag(&result, "wait_rest");
        // At the wait limit nothing is pending, so that result goes to history at once.
        let history_deferred = HISTORY_DEFERRED_TOOLS.contains(&invocation.tool_name.as_str())
            && result.success
            && result.pauses_execution()
            && !flag(&result, "wait_rest");
        let media_ids = media.iter().map(|media| media.media_id.clone()).collect();
        outcome.media.extend(media);
        ToolResultMessage {
            call_id: invocation.call_id.clone(),
            tool_name: invocation.tool_name.clone(),
            status: if result.success {
                CallStatus::Succeeded
            } else {
                CallStatus::Failed
            },
            content,
            media_ids,
            history_deferred,
            invocation,
            result: Some(result),
        }
    }
}
