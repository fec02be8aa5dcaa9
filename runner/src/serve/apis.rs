//! `plugin.invoke_api`: one of the plugin's APIs run for another plugin's `api.call`.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use futures::FutureExt;
use futures::future::BoxFuture;
use maitool_protocol::ToolExecutionContext;
use maitool_protocol::rpc::{IncomingMessage, Payload, RpcError};
use maitool_protocol::wire::ErrorCode;
use maitool_protocol::wire::methods::{InvokePayload, InvokeResultPayload};
use serde_json::Value;

use super::requests::InFlightGuard;
use super::{RunnerState, panic_message};

impl RunnerState {
    pub(super) fn invoke_api(
        self: &Arc<Self>,
        request: IncomingMessage,
    ) -> BoxFuture<'static, Result<Payload, RpcError>> {
        let state = self.clone();
        async move {
            let plugin = state.loaded_plugin(&request)?;
            let InvokePayload {
                component_name,
                args,
                ..
            } = request.payload()?;
            let Some(handler) = plugin.apis.get(component_name.as_str()).cloned() else {
                return Err(RpcError::new(
                    ErrorCode::ToolNotFound,
                    format!("plugin {} has no API {component_name}", plugin.spec.id),
                ));
            };
            let ctx =
                state.component_context(plugin, &component_name, ToolExecutionContext::default());
            state.in_flight.fetch_add(1, Ordering::Relaxed);
            let _guard = InFlightGuard(&state.in_flight);
            let call = crate::log_forward::in_plugin(plugin.tag.clone(), handler.call(args, ctx));
            let outcome = match std::panic::AssertUnwindSafe(call).catch_unwind().await {
                Ok(outcome) => outcome,
                Err(panic) => Err(format!(
                    "API {component_name} panicked: {}",
                    panic_message(panic.as_ref())
                )),
            };
            // MaiBot's answer: the value, or the failure's text as the result.
            let answer = match outcome {
                Ok(value) => InvokeResultPayload {
                    success: true,
                    result: Some(value),
                    tool_result: None,
                },
                Err(reason) => InvokeResultPayload {
                    success: false,
                    result: Some(Value::String(reason)),
                    tool_result: None,
                },
            };
            Payload::encode(&answer)
        }
        .boxed()
    }
}
