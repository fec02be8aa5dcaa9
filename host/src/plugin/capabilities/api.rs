//! `api.*`: other plugins' APIs (MaiBot's `@API` components and dynamic APIs), routed to the
//! owning plugin's runner whichever runner the caller is in.
//!
//! Answers are MaiBot's, and so is every refusal the caller can act on: an unknown, private,
//! offline or ambiguous API, bad arguments, an API that failed, and a platform adapter's API
//! (`adapter.napcat.*`, which maitool cannot serve) all answer `{success: false, error}`
//! rather than raise, so a plugin's own fallback for a failed call runs. A missing grant is
//! `E_CAPABILITY_DENIED`, as for every capability; `api.replace_dynamic` needs none, as in
//! MaiBot, since it only changes what the caller itself offers.

use std::sync::{Arc, Weak};

use maitool_protocol::capability::Capability;
use maitool_protocol::rpc::RpcError;
use serde_json::{Value, json};

use super::CapabilityService;
use super::PluginControl;
use super::args::Args;

impl CapabilityService {
    pub(super) async fn api(&self, plugin_id: &str, args: Args<'_>) -> Result<Value, RpcError> {
        let runtime: Arc<dyn PluginControl> = self
            .runtime
            .get()
            .and_then(Weak::upgrade)
            .ok_or_else(|| args.failed("this host has no plugin runtime attached"))?;
        Ok(match args.capability {
            Capability::ApiCall => call(runtime, plugin_id, args).await,
            Capability::ApiGet => get(runtime.as_ref(), plugin_id, args),
            Capability::ApiList => list(runtime.as_ref(), plugin_id, args),
            Capability::ApiReplaceDynamic => replace_dynamic(runtime.as_ref(), plugin_id, args),
            _ => unreachable!("dispatch only routes api.* capabilities here"),
        })
    }
}

fn failed(error: impl std::fmt::Display) -> Value {
    json!({ "success": false, "error": error.to_string() })
}

/// A string argument, `""` when absent; `Err` is the `{success: false}` answer.
fn text(args: &Args<'_>, key: &str) -> Result<String, Value> {
    match args.value(key) {
        None => Ok(String::new()),
        Some(Value::String(text)) => Ok(text.trim().to_owned()),
        Some(Value::Number(number)) => Ok(number.to_string()),
        Some(other) => Err(failed(format!(
            "argument {key} must be a string, not {}",
            maitool_protocol::json_kind(other)
        ))),
    }
}

async fn call(runtime: Arc<dyn PluginControl>, caller: &str, args: Args<'_>) -> Value {
    let (name, version) = match (text(&args, "api_name"), text(&args, "version")) {
        (Ok(name), Ok(version)) => (name, version),
        (Err(answer), _) | (_, Err(answer)) => return answer,
    };
    let api_args = match args.value("args") {
        None => serde_json::Map::new(),
        Some(Value::Object(map)) => map.clone(),
        Some(other) => {
            return failed(format!(
                "argument args must be an object, not {}",
                maitool_protocol::json_kind(other)
            ));
        }
    };
    let api = match runtime.apis().resolve(caller, &name, &version) {
        Ok(api) => api,
        Err(refusal) => {
            tracing::debug!(plugin_id = caller, api = %name, "api.call refused: {refusal}");
            return failed(refusal);
        }
    };
    tracing::debug!(plugin_id = caller, api = %api.registry_key, "api.call");
    runtime.call_api(api, api_args).await
}

fn get(runtime: &dyn PluginControl, caller: &str, args: Args<'_>) -> Value {
    let (name, version) = match (text(&args, "api_name"), text(&args, "version")) {
        (Ok(name), Ok(version)) => (name, version),
        (Err(answer), _) | (_, Err(answer)) => return answer,
    };
    if name.is_empty() {
        return failed("api_name is required");
    }
    match runtime.apis().resolve(caller, &name, &version) {
        Ok(api) => json!({ "success": true, "api": api.to_json() }),
        // MaiBot answers "none" for every miss, whatever the reason.
        Err(_) => json!({ "success": true, "api": null }),
    }
}

fn list(runtime: &dyn PluginControl, caller: &str, args: Args<'_>) -> Value {
    let name = match args.value("api_name") {
        Some(_) => text(&args, "api_name"),
        None => text(&args, "name"),
    };
    let (provider, name, version) = match (text(&args, "plugin_id"), name, text(&args, "version")) {
        (Ok(provider), Ok(name), Ok(version)) => (provider, name, version),
        (Err(answer), _, _) | (_, Err(answer), _) | (_, _, Err(answer)) => return answer,
    };
    let reference = maitool_protocol::api::ApiReference::parse(&name, &version);
    let apis: Vec<Value> = runtime
        .apis()
        .list(caller, &provider, &reference.name, &reference.version)
        .iter()
        .map(|api| api.to_json())
        .collect();
    json!({ "success": true, "apis": apis })
}

fn replace_dynamic(runtime: &dyn PluginControl, caller: &str, args: Args<'_>) -> Value {
    let apis = match args.value("apis") {
        None => Vec::new(),
        Some(Value::Array(apis)) => apis.clone(),
        Some(other) => {
            return failed(format!(
                "argument apis must be a list, not {}",
                maitool_protocol::json_kind(other)
            ));
        }
    };
    let reason = match text(&args, "offline_reason") {
        Ok(reason) => reason,
        Err(answer) => return answer,
    };
    match runtime.apis().replace_dynamic(caller, &apis, &reason) {
        Ok(done) => {
            tracing::info!(
                plugin_id = caller,
                registered = done.registered,
                offlined = done.offlined,
                "dynamic APIs replaced"
            );
            json!({ "success": true, "count": done.registered, "offlined": done.offlined })
        }
        Err(problem) => failed(problem),
    }
}
