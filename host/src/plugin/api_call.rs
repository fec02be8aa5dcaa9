//! One API call on the owning plugin's runner (`plugin.invoke_api`), answered in MaiBot's
//! shape: `{success: true, result}`, or `{success: false, error}` when the API failed or
//! could not be reached, which the calling plugin reads as a failed call.

use std::time::Duration;

use maitool_protocol::JsonObject;
use maitool_protocol::api::{DYNAMIC_ARG_FULL_NAME, DYNAMIC_ARG_NAME, DYNAMIC_ARG_VERSION};
use maitool_protocol::wire::methods::{InvokeResultPayload, names};
use serde::Serialize;
use serde_json::{Value, json};

use super::apis::ApiEntry;
use super::shared::RuntimeShared;

#[derive(Serialize)]
struct ApiRequest<'a> {
    component_name: &'a str,
    args: &'a JsonObject,
}

/// Calls `entry` with `args` for another plugin's `api.call`.
pub(crate) async fn call_api(
    runtime: &RuntimeShared,
    entry: &ApiEntry,
    mut args: JsonObject,
) -> Value {
    if entry.dynamic {
        // One handler may serve several dynamic APIs: tell it which was called.
        for (key, value) in [
            (DYNAMIC_ARG_NAME, &entry.name),
            (DYNAMIC_ARG_FULL_NAME, &entry.full_name),
            (DYNAMIC_ARG_VERSION, &entry.version),
        ] {
            args.entry(key)
                .or_insert_with(|| Value::from(value.as_str()));
        }
    }
    let Some(live) = runtime.live_peer(&entry.plugin_id) else {
        return failed(format!(
            "API {} cannot be called: the runner of plugin {} is not ready",
            entry.registry_key, entry.plugin_id
        ));
    };
    let timeout_ms = match entry.timeout_ms {
        0 => runtime.config.default_tool_timeout_ms,
        ms => ms,
    };
    let request = ApiRequest {
        component_name: &entry.handler_name,
        args: &args,
    };
    let answer = live
        .peer
        .call::<_, InvokeResultPayload>(
            names::INVOKE_API,
            &entry.plugin_id,
            &request,
            Duration::from_millis(timeout_ms),
        )
        .await;
    match answer {
        Ok(InvokeResultPayload {
            success: true,
            result,
            ..
        }) => json!({ "success": true, "result": result.unwrap_or(Value::Null) }),
        Ok(InvokeResultPayload { result, .. }) => failed(match result {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(text)) => text,
            Some(other) => other.to_string(),
        }),
        Err(err) => failed(format!(
            "API {} failed: {}",
            entry.registry_key, err.message
        )),
    }
}

fn failed(error: String) -> Value {
    json!({ "success": false, "error": error })
}
