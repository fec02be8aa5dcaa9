//! The rmcp `ServerHandler` over the registry: `tools/list`, `tools/call`, and the
//! `tools/list_changed` subscriptions of both protocol eras.

use std::future::Future;
use std::time::Duration;

use maitool_protocol::{JsonObject, ToolExecutionResult, ToolInvocation};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelledNotificationParam,
    ContentBlock, Implementation, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ProtocolVersion, RequestMetaObject, ServerCapabilities,
    ServerConfig, SubscriptionFilter,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer, SubscriptionContext};
use rmcp::{ErrorData, ServerHandler};
use tokio::time::{Instant, Interval};

use super::McpFront;
use super::context::request_context;
use super::cursor::{Cursor, page};
use super::result::{StructuredRule, to_call_result};
use super::tools::spec_to_tool;

const INSTRUCTIONS: &str = "maitool's unified tool set: plugin tools, legacy Actions, built-in \
engine tools and tools of external MCP servers. Calls run in the chat context the server was \
started with; override it per request with the _meta keys maitool/session_id, \
maitool/stream_id, maitool/group_id, maitool/user_id, maitool/platform, maitool/is_group_chat \
and maitool/reasoning.";

impl McpFront {
    /// The request's `_meta`: what rmcp moved into the context, plus anything left in the
    /// params (the context wins).
    fn request_meta(context: &RequestMetaObject, params: Option<&RequestMetaObject>) -> JsonObject {
        let mut meta = params.map(|meta| meta.0.0.clone()).unwrap_or_default();
        meta.extend(context.0.0.iter().map(|(k, v)| (k.clone(), v.clone())));
        meta
    }
}

impl ServerHandler for McpFront {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
        .with_server_info(Implementation::new("maitool", env!("CARGO_PKG_VERSION")))
        .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let params_meta = request.as_ref().and_then(|params| params.meta.as_ref());
        let meta = Self::request_meta(&context.meta, params_meta);
        let chat = request_context(&self.shared.config.context, &meta)
            .map_err(|err| ErrorData::invalid_params(err.to_string(), None))?;
        let cursor = request
            .and_then(|params| params.cursor)
            .map(|cursor| Cursor::decode(&cursor))
            .transpose()
            .map_err(|err| ErrorData::invalid_params(err.to_string(), None))?;

        // Many clients list once, at start, and never act on list_changed.
        self.shared.settled.wait().await;
        let specs = self.shared.registry.list_tools(&chat.availability()).await;
        let names: Vec<&str> = specs.iter().map(|spec| spec.name.as_str()).collect();
        let page_size = self.shared.config.page_size.unwrap_or(usize::MAX);
        let (range, next) = page(&names, cursor.as_ref(), page_size);
        let tools = specs
            .into_iter()
            .skip(range.start)
            .take(range.len())
            // The registry shares its specs; the MCP model needs its own copy.
            .map(|spec| spec_to_tool(std::sync::Arc::unwrap_or_clone(spec)))
            .collect();
        let mut result = ListToolsResult::with_all_items(tools);
        result.next_cursor = next.map(|cursor| cursor.encode());
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let meta = Self::request_meta(&context.meta, request.meta.as_ref());
        let chat = request_context(&self.shared.config.context, &meta)
            .map_err(|err| ErrorData::invalid_params(err.to_string(), None))?;
        let name = request.name.to_string();
        let mut invocation =
            ToolInvocation::new(name.clone(), request.arguments.unwrap_or_default())
                .with_call_id(format!("mcp-{}", context.id));
        invocation.session_id = chat.session_id.clone();
        invocation.stream_id = chat.stream_id.clone();
        invocation.reasoning = chat.reasoning.clone();
        let rule = structured_rule(context.protocol_version());

        // A call made before any listing (a client that knows its tool) finds it too.
        self.shared.settled.wait().await;
        // Another host may get this call's cancel (the client's session moves with the
        // balancer): it announces it, and this tracking hears it.
        #[cfg(feature = "http")]
        let _tracked = self.shared.cancels.get().and_then(|cancels| {
            cancels.track_request(&context.extensions, &context.id, context.ct.clone())
        });
        let registry = &self.shared.registry;
        let invoke = registry.invoke(invocation, &chat);
        match run(
            invoke,
            &context,
            self.shared.config.progress_interval,
            &name,
        )
        .await
        {
            Some(result) => Ok(to_call_result(result, rule).into()),
            None => {
                // The future (and with it the provider's call: the runner or MCP server is sent
                // its cancel) is dropped. The client ignores this answer, as the spec says.
                tracing::info!(tool = %name, request = %context.id, "tools/call cancelled by the client");
                Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                    "call of {name} cancelled by the client"
                ))])
                .into())
            }
        }
    }

    fn accepted_subscription_filter(
        &self,
        _requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(SubscriptionFilter::builder().tools_list_changed().build())
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let subscribers = &self.shared.subscribers;
        let key = subscribers.add_sink(context.sink().clone());
        context.cancelled().await;
        subscribers.remove_sink(key);
        Ok(())
    }

    async fn on_cancelled(
        &self,
        cancelled: CancelledNotificationParam,
        context: NotificationContext<RoleServer>,
    ) {
        // rmcp has cancelled the call if it runs in this process; one that runs on another
        // host hears of it through the shared store.
        #[cfg(feature = "http")]
        if let Some(cancels) = self.shared.cancels.get() {
            cancels
                .relay_notification(&cancelled, &context.extensions)
                .await;
        }
        #[cfg(not(feature = "http"))]
        let _ = (cancelled, context);
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        // Only clients that connected with `initialize` get here; 2026-07-28 clients listen.
        self.shared.subscribers.add_legacy(context.peer);
    }
}

/// `structuredContent` may be any JSON value from 2026-07-28 on (SEP-2106).
fn structured_rule(version: Option<ProtocolVersion>) -> StructuredRule {
    match version {
        Some(version) if version.as_str() >= ProtocolVersion::V_2026_07_28.as_str() => {
            StructuredRule::AnyJson
        }
        _ => StructuredRule::ObjectOnly,
    }
}

/// Runs the call until it finishes (`Some`) or the client cancels it (`None`, the call's
/// future dropped). When the request has a progress token, a progress notification every
/// `interval` tells the client the call is still running (providers report no progress of
/// their own), so clients that reset their timeout on progress keep waiting for slow tools.
async fn run(
    invoke: impl Future<Output = ToolExecutionResult>,
    context: &RequestContext<RoleServer>,
    interval: Option<Duration>,
    tool: &str,
) -> Option<ToolExecutionResult> {
    let token = context.meta.get_progress_token();
    let started = Instant::now();
    let mut ticker = token
        .as_ref()
        .and(interval)
        .filter(|interval| !interval.is_zero())
        .map(|interval| tokio::time::interval_at(started + interval, interval));
    let mut invoke = std::pin::pin!(invoke);
    loop {
        tokio::select! {
            biased;
            _ = context.ct.cancelled() => return None,
            result = &mut invoke => return Some(result),
            _ = tick(&mut ticker) => {
                let Some(token) = &token else { continue };
                let elapsed = started.elapsed().as_secs_f64();
                let progress = ProgressNotificationParam::new(token.clone(), elapsed)
                    .with_message(format!("{tool} running for {elapsed:.1} s"));
                if let Err(err) = context.peer.notify_progress(progress).await {
                    tracing::debug!(tool, "progress notification failed: {err}");
                }
            }
        }
    }
}

async fn tick(ticker: &mut Option<Interval>) {
    match ticker {
        Some(ticker) => {
            ticker.tick().await;
        }
        None => std::future::pending().await,
    }
}
