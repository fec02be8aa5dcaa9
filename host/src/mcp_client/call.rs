//! One `tools/call`: an idle timeout that restarts on progress, a hard cap, and a
//! `notifications/cancelled` whenever the host stops waiting (a timeout, or the caller
//! dropping the future).

use std::time::Duration;

use maitool_protocol::{JsonObject, ToolExecutionResult};
use rmcp::Peer;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotificationParam, ClientRequest,
    CustomResult, RequestId, ServerResult,
};
use rmcp::service::{PeerRequestOptions, RoleClient};

use super::raw_result::map_raw_call_result;
use super::result::{CallOrigin, map_call_error, map_call_result, unsupported_response};

/// The reason sent when the caller drops a call in flight.
const ABANDONED: &str = "request abandoned by the caller";

/// Calls `origin.mcp_tool_name` with `arguments` and maps whatever happens to a result.
pub async fn call_tool(
    peer: &Peer<RoleClient>,
    origin: &CallOrigin<'_>,
    arguments: JsonObject,
    idle: Duration,
    cap: Duration,
) -> ToolExecutionResult {
    let params =
        CallToolRequestParams::new(origin.mcp_tool_name.to_owned()).with_arguments(arguments);
    let options = PeerRequestOptions::with_timeout(idle.min(cap))
        .reset_timeout_on_progress()
        .with_max_total_timeout(cap);
    let handle = match peer
        .send_request_with_option(
            ClientRequest::CallToolRequest(CallToolRequest::new(params)),
            options,
        )
        .await
    {
        Ok(handle) => handle,
        Err(err) => return map_call_error(origin, &err, idle, cap),
    };
    // rmcp itself cancels on its own timeouts; this guard covers the caller giving up.
    let mut guard = CancelOnDrop {
        peer,
        id: Some(handle.id.clone()),
    };
    let response = handle.await_response().await;
    guard.id = None;
    match response {
        Ok(ServerResult::CallToolResult(result)) => map_call_result(origin, result),
        // A tool may answer with an empty result (no content at all).
        Ok(ServerResult::EmptyResult(_)) => map_call_result(origin, Default::default()),
        Ok(ServerResult::InputRequiredResult(_)) => {
            unsupported_response(origin, "an input_required result (MRTR)")
        }
        Ok(ServerResult::CreateTaskResult(_)) => unsupported_response(origin, "a task"),
        // rmcp could not read it as a whole (e.g. a content block of a type it does not
        // know): read it block by block.
        Ok(ServerResult::CustomResult(CustomResult(raw))) => map_raw_call_result(origin, raw),
        Ok(_) => unsupported_response(origin, "a result of another request type"),
        Err(err) => map_call_error(origin, &err, idle, cap),
    }
}

struct CancelOnDrop<'a> {
    peer: &'a Peer<RoleClient>,
    id: Option<RequestId>,
}

impl Drop for CancelOnDrop<'_> {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let peer = self.peer.clone();
        runtime.spawn(async move {
            let params = CancelledNotificationParam::new(Some(id), Some(ABANDONED.to_owned()));
            if let Err(err) = peer.notify_cancelled(params).await {
                tracing::debug!("cannot send notifications/cancelled: {err}");
            }
        });
    }
}
