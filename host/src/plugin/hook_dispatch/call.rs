//! One call of one hook handler on its plugin's runner (`plugin.invoke_hook`), under the
//! plugin's circuit breaker, the same one as its tool calls.

use std::time::Duration;

use maitool_protocol::JsonObject;
use maitool_protocol::hook::{HOOK_NAME_ARG, HookResponse};
use maitool_protocol::rpc::RpcError;
use maitool_protocol::wire::ErrorCode;
use maitool_protocol::wire::methods::names;
use serde::Serialize;

use crate::plugin::breaker;
use crate::plugin::hooks::HookHandlerEntry;
use crate::plugin::shared::RuntimeShared;

/// What came of calling one handler.
#[derive(Debug)]
pub(super) enum HandlerRun {
    /// The handler answered.
    Answered(HookResponse),
    /// It failed: it raised, timed out, or its runner failed it.
    Failed(String),
    /// It was not called: its runner is not ready, or its plugin's circuit is open.
    Skipped(String),
}

/// `plugin.invoke_hook`'s payload: MaiBot's `InvokePayload`, the kwargs with `hook_name`.
#[derive(Serialize)]
struct HookRequest<'a> {
    component_name: &'a str,
    args: &'a JsonObject,
}

/// Calls `entry` with `kwargs` for `hook`, waiting at most `timeout_ms`.
pub(super) async fn call_handler(
    runtime: &RuntimeShared,
    entry: &HookHandlerEntry,
    hook: &str,
    kwargs: &JsonObject,
    timeout_ms: u64,
) -> HandlerRun {
    let Some(live) = runtime.live_peer(&entry.plugin_id) else {
        return HandlerRun::Skipped(format!(
            "hook handler {} skipped: its runner is not ready",
            entry.full_name
        ));
    };
    let permit = match runtime.breakers.admit(&entry.plugin_id) {
        Ok(permit) => permit,
        Err(rejection) => {
            return HandlerRun::Skipped(format!(
                "hook handler {} skipped: plugin {}: {rejection}",
                entry.full_name, entry.plugin_id
            ));
        }
    };
    let mut args = kwargs.clone();
    args.entry(HOOK_NAME_ARG)
        .or_insert_with(|| serde_json::Value::from(hook));
    let request = HookRequest {
        component_name: &entry.name,
        args: &args,
    };
    let answer = live
        .peer
        .call::<_, HookResponse>(
            names::INVOKE_HOOK,
            &entry.plugin_id,
            &request,
            Duration::from_millis(timeout_ms),
        )
        .await;
    let failure = |err: &RpcError| failure(entry, timeout_ms, err);
    breaker::record(permit, &answer, failure);
    match answer {
        Ok(response) if response.success => HandlerRun::Answered(response),
        Ok(response) if response.error_message.is_empty() => {
            HandlerRun::Failed(format!("hook handler {} failed", entry.full_name))
        }
        Ok(response) => HandlerRun::Failed(format!(
            "hook handler {} failed: {}",
            entry.full_name, response.error_message
        )),
        Err(err) => HandlerRun::Failed(failure(&err)),
    }
}

/// Why a call of `entry` got no answer.
fn failure(entry: &HookHandlerEntry, timeout_ms: u64, err: &RpcError) -> String {
    match err.code {
        ErrorCode::Timeout => format!(
            "hook handler {} timed out after {timeout_ms} ms",
            entry.full_name
        ),
        ErrorCode::PluginCrashed => format!(
            "hook handler {} failed: its runner ended: {}",
            entry.full_name, err.message
        ),
        _ => format!("hook handler {} failed: {err}", entry.full_name),
    }
}
