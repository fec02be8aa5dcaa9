//! The failed result of a plugin call that got no answer from its runner.
//!
//! The text is what a model and an operator read: it names the tool once, and says what
//! happened in their terms (a time limit, a restarted runner), not which RPC method failed.
//! The error code stays in the metadata (`error_code`) for programs.

use maitool_protocol::ToolExecutionResult;
use maitool_protocol::rpc::RpcError;
use maitool_protocol::wire::ErrorCode;

/// The result of a call to `name` (of `plugin_id`, limited to `timeout_ms`) that failed with
/// `err` before the runner answered.
pub(crate) fn call_failure(
    name: &str,
    plugin_id: &str,
    err: &RpcError,
    timeout_ms: u64,
) -> ToolExecutionResult {
    let message = match &err.code {
        ErrorCode::Timeout => format!("tool {name} timed out after {}", duration(timeout_ms)),
        // The connection's own reason: why the runner went away, when the host knows.
        ErrorCode::PluginCrashed => format!("tool {name} failed: {}", err.message),
        _ => format!("tool {name} failed: {err}"),
    };
    ToolExecutionResult::failure(name, message)
        .with_metadata("plugin_id", plugin_id.to_owned())
        .with_metadata("error_code", err.code.as_str().to_owned())
}

/// A limit as people write it: `500 ms`, `2 s`, `2.5 s`.
pub(crate) fn duration(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        let tenths = (ms as f64 / 100.0).round() / 10.0;
        format!("{tenths} s")
    }
}

#[cfg(test)]
mod tests;
