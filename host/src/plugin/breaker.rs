//! The plugins' circuit breakers ([`crate::circuit`], one circuit per plugin id), around
//! tool calls and hook handler runs alike: what counts as a failure, and the result of a
//! refused tool call.
//!
//! A call counts as failed when it got no answer because it timed out (`E_TIMEOUT`) or its
//! runner went away while it ran (`E_PLUGIN_CRASHED`: a crash, or a restart for failed health
//! checks). Any answer counts as a success, a tool's own `success: false` and a hook handler
//! that raised included: the plugin is working, it said no. Calls refused before they reach
//! the runner (invalid arguments, a paused or unavailable tool, a runner that is not back from
//! a restart) do not count either way.

use maitool_protocol::ToolExecutionResult;
use maitool_protocol::rpc::RpcError;
use maitool_protocol::wire::ErrorCode;

use crate::circuit::{Permit, Rejection};

/// The `error_code` of a call refused because its plugin's circuit is open.
pub(crate) const CIRCUIT_OPEN_CODE: &str = "E_CIRCUIT_OPEN";

/// The failed result of a call to `name` that the circuit of `plugin_id` refused.
pub(crate) fn refused(name: &str, plugin_id: &str, rejection: &Rejection) -> ToolExecutionResult {
    ToolExecutionResult::failure(
        name,
        format!("tool {name} was not called: plugin {plugin_id}'s {rejection}"),
    )
    .with_metadata("plugin_id", plugin_id.to_owned())
    .with_metadata("error_code", CIRCUIT_OPEN_CODE)
    .with_metadata("circuit_state", rejection.state.as_str())
    .with_metadata("retry_in_ms", rejection.retry_in.as_millis() as u64)
}

/// Reports how the call went on its permit; `failure` words a counted failure.
pub(crate) fn record<T>(
    permit: Permit,
    answer: &Result<T, RpcError>,
    failure: impl FnOnce(&RpcError) -> String,
) {
    match answer {
        Ok(_) => permit.succeeded(),
        Err(err) if matches!(err.code, ErrorCode::Timeout | ErrorCode::PluginCrashed) => {
            permit.failed(failure(err));
        }
        // Back-pressure, a refused frame, ...: not the plugin's health.
        Err(_) => drop(permit),
    }
}
