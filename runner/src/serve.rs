//! Connects to the host, loads plugins, serves until told to stop.

use std::collections::HashSet;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use futures::FutureExt;
use futures::future::BoxFuture;
use interprocess::local_socket::tokio::Stream;
use interprocess::local_socket::tokio::prelude::*;
use interprocess::local_socket::{GenericFilePath, ToFsName};
use maitool_protocol::rpc::{
    IncomingMessage, Payload, PeerConfig, RequestHandler, RpcError, RpcPeer,
};
use maitool_protocol::wire::methods::{
    AckPayload, ConfigUpdatedPayload, ConfigUpdatedResponse, HealthPayload, HelloPayload,
    HelloResponsePayload, RegisterComponentsPayload, RegisterComponentsResponse,
    RunnerReadyPayload, ShutdownPayload, names,
};
use maitool_protocol::wire::{EncodedValue, ErrorCode, InvokeView, SUPPORTED_PROTOCOL_VERSIONS};
use maitool_protocol::{JsonObject, NamedResult, ToolExecutionContext, ToolExecutionResult};
use tokio::sync::Notify;

use crate::load_error::LoadError;
use crate::log_forward::LogForwarder;
use crate::{
    ComponentHandler, HostClient, InvocationContext, LaunchEnv, PluginSpec, RUNNER_VERSION,
    RunnerError,
};

const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
const REGISTRATION_TIMEOUT: Duration = Duration::from_secs(10);
/// How long `on_unload` hooks may take when the runner stops.
const UNLOAD_TIMEOUT: Duration = Duration::from_secs(5);

/// How the runner process runs.
#[derive(Debug, Clone, Default)]
pub struct RunnerOptions {
    /// Worker threads of the async runtime. `None` or `Some(1)`: a current-thread runtime,
    /// which gives the lowest call latency; more threads suit CPU-heavy handlers.
    pub worker_threads: Option<usize>,
}

/// The runner's entry point: reads the launch environment, ties the process to the host's
/// lifetime, serves the plugins, and exits the process (0 after a clean stop, 1 on error).
pub fn run(plugins: Vec<PluginSpec>, options: RunnerOptions) -> ! {
    let env = match LaunchEnv::read() {
        Ok(env) => env,
        Err(err) => {
            // No host to forward to: stderr is the only channel left.
            eprintln!("maitool runner: {err}");
            std::process::exit(2);
        }
    };
    let forwarder = LogForwarder::install();
    crate::log_forward::install_panic_hook();
    die_with_parent();
    let runtime = match options.worker_threads {
        Some(threads) if threads > 1 => tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads)
            .enable_all()
            .build(),
        _ => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build(),
    };
    let runtime = match runtime {
        Ok(runtime) => runtime,
        Err(err) => {
            tracing::error!("{}", RunnerError::Runtime(err));
            std::process::exit(1);
        }
    };
    let outcome = runtime.block_on(serve(env, plugins, forwarder));
    // Plugin tasks may still be parked on I/O; do not wait for them.
    runtime.shutdown_timeout(Duration::from_millis(100));
    match outcome {
        Ok(()) => std::process::exit(0),
        Err(err) => {
            tracing::error!("runner stopped: {err}");
            std::process::exit(1);
        }
    }
}

/// Asks the kernel to kill this process when the host dies, so no runner is ever orphaned
/// even if the socket EOF is missed. Linux only; elsewhere the socket EOF is the signal.
fn die_with_parent() {
    #[cfg(target_os = "linux")]
    {
        let parent = nix::unistd::getppid();
        if let Err(err) = nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL) {
            tracing::warn!("cannot set the parent-death signal: {err}");
        }
        // The host may have died between our fork and the prctl: then we are already orphaned.
        if nix::unistd::getppid() != parent {
            std::process::exit(1);
        }
    }
}

/// Connects to the host and serves `plugins` until shutdown or disconnect.
pub async fn serve(
    env: LaunchEnv,
    plugins: Vec<PluginSpec>,
    forwarder: LogForwarder,
) -> Result<(), RunnerError> {
    check_unique(&plugins)?;
    let name = env
        .address
        .as_str()
        .to_fs_name::<GenericFilePath>()
        .map_err(|source| RunnerError::Connect {
            address: env.address.clone(),
            source,
        })?;
    let stream = Stream::connect(name)
        .await
        .map_err(|source| RunnerError::Connect {
            address: env.address.clone(),
            source,
        })?;
    serve_stream(stream, env, plugins, Some(forwarder)).await
}

fn check_unique(plugins: &[PluginSpec]) -> Result<(), RunnerError> {
    let mut ids = HashSet::new();
    match plugins
        .iter()
        .find(|plugin| !ids.insert(plugin.id.as_str()))
    {
        Some(plugin) => Err(RunnerError::DuplicatePlugin(plugin.id.clone())),
        None => Ok(()),
    }
}

/// Serves `plugins` over a connection that is already open, from the handshake on, until
/// shutdown or disconnect: what [`serve`] does once connected. `env.address` is not used.
/// Without a `forwarder`, log records stay with whatever subscriber the process has (the
/// SDK's test harness runs the runner in-process this way, over an in-memory stream).
pub async fn serve_stream<IO>(
    stream: IO,
    env: LaunchEnv,
    plugins: Vec<PluginSpec>,
    forwarder: Option<LogForwarder>,
) -> Result<(), RunnerError>
where
    IO: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + 'static,
{
    check_unique(&plugins)?;
    let state = Arc::new(RunnerState::new(plugins));
    let runner_id = if env.runner_name.is_empty() {
        format!("runner-{}", std::process::id())
    } else {
        env.runner_name.clone()
    };
    let config = PeerConfig {
        name: runner_id.clone(),
        // A runner calls the host rarely; between requests it waits with no timer pending.
        release_idle_timer: true,
        ..PeerConfig::default()
    };
    let peer = RpcPeer::start(stream, Arc::new(RunnerHandler(state.clone())), config);
    let _ = state.peer.set(peer.clone());
    if let Some(forwarder) = &forwarder {
        forwarder.attach(peer.clone());
    }

    let hello = HelloPayload {
        runner_id,
        sdk_version: RUNNER_VERSION.to_owned(),
        session_token: env.session_token,
        protocol_versions: SUPPORTED_PROTOCOL_VERSIONS
            .iter()
            .map(|v| (*v).to_owned())
            .collect(),
        pid: std::process::id(),
        // Every handler gets the execution context in its `InvocationContext`, and the SDK
        // hands a tool only the context keys it declares: copies of the others in `args`
        // would be encoded by the host and dropped here, for every call.
        reads_context: true,
    };
    let answer: HelloResponsePayload = peer
        .call(names::HELLO, "", &hello, HANDSHAKE_TIMEOUT)
        .await
        .map_err(RunnerError::Handshake)?;
    if !answer.accepted {
        peer.close();
        return Err(RunnerError::Rejected(answer.reason));
    }

    let ready = load_plugins(&state, &peer, &answer).await;
    state.loaded_ids_set(ready.loaded_plugins.clone());
    if let Err(err) = peer
        .call::<_, AckPayload>(names::READY, "", &ready, REGISTRATION_TIMEOUT)
        .await
    {
        tracing::warn!("runner.ready was not acknowledged: {err}");
    }

    tokio::select! {
        _ = peer.closed() => {}
        _ = state.stop.notified() => {}
    }
    state.unload_all().await;
    if let Some(forwarder) = &forwarder {
        forwarder.flush_now();
    }
    // Waited for: the process exits right after, and records still queued (the last call's,
    // in a one-shot `maitool call`) would be lost with the runtime.
    peer.close_flushed().await;
    Ok(())
}

/// Configures, registers and loads every plugin; one plugin's failure never affects another.
async fn load_plugins(
    state: &Arc<RunnerState>,
    peer: &RpcPeer,
    answer: &HelloResponsePayload,
) -> RunnerReadyPayload {
    let mut ready = RunnerReadyPayload::default();
    for plugin in &state.plugins {
        let spec = &plugin.spec;
        let bootstrap = answer.plugins.get(&spec.id).cloned().unwrap_or_default();
        if !bootstrap.enabled {
            ready.inactive_plugins.push(spec.id.clone());
            continue;
        }
        let loaded = match crate::data_dir::from_bootstrap(&bootstrap.data_dir) {
            Ok(data_dir) => {
                if let Some(dir) = &data_dir {
                    let _ = plugin.data_dir.set(dir.clone());
                }
                load_one(plugin, peer, &bootstrap.config, data_dir).await
            }
            Err(reason) => Err(reason),
        };
        match loaded {
            Ok(()) => {
                plugin.loaded.store(true, Ordering::Release);
                ready.loaded_plugins.push(spec.id.clone());
            }
            Err(reason) => {
                tracing::error!(plugin_id = %spec.id, "plugin failed to load: {reason}");
                ready.failed_plugins.push(spec.id.clone());
                ready
                    .failed_plugin_reasons
                    .insert(spec.id.clone(), reason.to_string());
            }
        }
    }
    ready
}

async fn load_one(
    plugin: &LoadedPlugin,
    peer: &RpcPeer,
    config: &JsonObject,
    data_dir: Option<Arc<Path>>,
) -> Result<(), LoadError> {
    let spec = &plugin.spec;
    // The hooks' records carry the plugin's id, as its handlers' do.
    let tag = &plugin.tag;
    crate::log_forward::in_plugin_sync(tag.clone(), || spec.hooks.configure(config))
        .map_err(LoadError::Config)?;
    register(spec, peer, true).await?;
    let host = HostClient::new(peer.clone(), Arc::clone(tag));
    let on_load = crate::log_forward::in_plugin(tag.clone(), spec.hooks.on_load(host, data_dir));
    let load = std::panic::AssertUnwindSafe(on_load).catch_unwind().await;
    let outcome = match load {
        Ok(Ok(())) => return Ok(()),
        Ok(Err(err)) => LoadError::OnLoad(err),
        Err(panic) => LoadError::Panicked(panic_message(panic.as_ref())),
    };
    // Roll back: the host must not keep components of a plugin that is not loaded.
    if let Err(err) = register(spec, peer, false).await {
        tracing::warn!(plugin_id = %spec.id, "could not withdraw components: {err}");
    }
    crate::log_forward::in_plugin(tag.clone(), spec.hooks.on_unload()).await;
    Err(outcome)
}

async fn register(
    spec: &PluginSpec,
    peer: &RpcPeer,
    with_components: bool,
) -> Result<(), LoadError> {
    let payload = RegisterComponentsPayload {
        plugin_id: spec.id.clone(),
        plugin_version: spec.version.clone(),
        plugin_type: "extension".to_owned(),
        components: if with_components {
            spec.components
                .iter()
                .map(|c| c.declaration.clone())
                .collect()
        } else {
            Vec::new()
        },
        capabilities_required: spec.capabilities_required.clone(),
        name: spec.name.clone(),
        description: spec.description.clone(),
        default_config: spec.default_config.clone(),
        config_schema: spec.config_schema.clone(),
    };
    let answer: RegisterComponentsResponse = peer
        .call(
            names::REGISTER_COMPONENTS,
            &spec.id,
            &payload,
            REGISTRATION_TIMEOUT,
        )
        .await
        .map_err(LoadError::Registration)?;
    if answer.accepted {
        Ok(())
    } else {
        Err(LoadError::Refused(answer.reason))
    }
}

pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = panic.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = panic.downcast_ref::<String>() {
        text.clone()
    } else {
        "non-string panic payload".to_owned()
    }
}

struct LoadedPlugin {
    spec: PluginSpec,
    /// The plugin id its log records are tagged with, shared by every call.
    tag: Arc<str>,
    /// Looked up on every call: foldhash, not SipHash (SipHash showed in the runner's profile).
    handlers: foldhash::HashMap<Arc<str>, Arc<dyn ComponentHandler>>,
    loaded: AtomicBool,
    /// Set once from the bootstrap, before the plugin loads.
    data_dir: OnceLock<Arc<Path>>,
}

/// Everything the request handler needs; shared with the RPC peer.
struct RunnerState {
    plugins: Vec<LoadedPlugin>,
    index: foldhash::HashMap<String, usize>,
    peer: OnceLock<RpcPeer>,
    started: Instant,
    in_flight: AtomicU64,
    draining: AtomicBool,
    stop: Notify,
    loaded_ids: parking_lot::Mutex<Vec<String>>,
}

impl RunnerState {
    fn new(plugins: Vec<PluginSpec>) -> Self {
        let plugins: Vec<LoadedPlugin> = plugins
            .into_iter()
            .map(|spec| {
                let handlers = spec
                    .components
                    .iter()
                    .map(|c| (Arc::from(c.declaration.name.as_str()), c.handler.clone()))
                    .collect();
                LoadedPlugin {
                    tag: Arc::from(spec.id.as_str()),
                    spec,
                    handlers,
                    loaded: AtomicBool::new(false),
                    data_dir: OnceLock::new(),
                }
            })
            .collect();
        let index = plugins
            .iter()
            .enumerate()
            .map(|(i, p)| (p.spec.id.clone(), i))
            .collect();
        Self {
            plugins,
            index,
            peer: OnceLock::new(),
            started: Instant::now(),
            in_flight: AtomicU64::new(0),
            draining: AtomicBool::new(false),
            stop: Notify::new(),
            loaded_ids: parking_lot::Mutex::new(Vec::new()),
        }
    }

    fn plugin(&self, id: &str) -> Option<&LoadedPlugin> {
        self.index.get(id).map(|&i| &self.plugins[i])
    }

    fn loaded_ids_set(&self, ids: Vec<String>) {
        *self.loaded_ids.lock() = ids;
    }

    async fn unload_all(&self) {
        for plugin in &self.plugins {
            if plugin.loaded.swap(false, Ordering::AcqRel) {
                let unload = crate::log_forward::in_plugin(
                    plugin.tag.clone(),
                    std::panic::AssertUnwindSafe(plugin.spec.hooks.on_unload()).catch_unwind(),
                );
                if tokio::time::timeout(UNLOAD_TIMEOUT, unload).await.is_err() {
                    tracing::warn!(plugin_id = %plugin.spec.id, "on_unload did not finish in time");
                }
            }
        }
    }

    fn invoke(
        self: &Arc<Self>,
        request: IncomingMessage,
    ) -> BoxFuture<'static, Result<Payload, RpcError>> {
        let state = self.clone();
        async move {
            if state.draining.load(Ordering::Acquire) {
                return Err(RpcError::shutting_down("runner is shutting down"));
            }
            let plugin = state
                .plugin(request.plugin_id())
                .filter(|p| p.loaded.load(Ordering::Acquire));
            let Some(plugin) = plugin else {
                return Err(RpcError::new(
                    ErrorCode::PluginNotFound,
                    format!("plugin {} is not loaded", request.plugin_id()),
                ));
            };
            // Names are shared, not copied, for every call.
            let plugin_id = Arc::clone(&plugin.tag);
            let InvokeView {
                component_name,
                args,
                context,
                call_id,
            } = request.invoke_view()?;
            let Some((tool_name, handler)) = plugin.handlers.get_key_value(&*component_name) else {
                return Err(RpcError::new(
                    ErrorCode::ToolNotFound,
                    format!("plugin {plugin_id} has no component {component_name}"),
                ));
            };
            let (tool_name, handler) = (Arc::clone(tool_name), Arc::clone(handler));
            let (execution, chat_id_argument) = execution_context(&args, context);
            let ctx = InvocationContext {
                host: HostClient::new(state.peer().clone(), Arc::clone(&plugin_id)),
                plugin_id: Arc::clone(&plugin_id),
                component_name: Arc::clone(&tool_name),
                call_id,
                execution,
                data_dir: plugin.data_dir.get().cloned(),
                chat_id_argument,
            };
            state.in_flight.fetch_add(1, Ordering::Relaxed);
            let _guard = InFlightGuard(&state.in_flight);
            let call = crate::log_forward::in_plugin(plugin.tag.clone(), handler.call(args, ctx));
            let result = match std::panic::AssertUnwindSafe(call).catch_unwind().await {
                Ok(result) => result,
                Err(panic) => {
                    // The panic hook has logged it, once, with its location and backtrace.
                    let message = panic_message(panic.as_ref());
                    ToolExecutionResult::failure(
                        &*tool_name,
                        format!("tool {tool_name} panicked: {message}"),
                    )
                }
            };
            answer(&tool_name, &result)
        }
        .boxed()
    }
}

/// The conversation context of a call, and the `chat_id` argument if the host sent one. The
/// host's own context is taken as is (moved, not copied: this runs for every call); a
/// MaiBot-style host sends the values as arguments only.
fn execution_context(
    args: &EncodedValue,
    context: Option<ToolExecutionContext>,
) -> (ToolExecutionContext, Option<String>) {
    let arg = |key: &str| args.str_entry(key).unwrap_or_default().to_owned();
    let execution = context.unwrap_or_else(|| ToolExecutionContext {
        stream_id: arg("stream_id"),
        group_id: arg("group_id"),
        user_id: arg("user_id"),
        platform: arg("platform"),
        reasoning: arg("reasoning"),
        ..ToolExecutionContext::default()
    });
    let chat_id = args
        .str_entry("chat_id")
        .filter(|id| !id.is_empty())
        .map(str::to_owned);
    (execution, chat_id)
}

/// The answer to an invocation of `tool_name`: `result`, under the tool's name if the handler
/// left it unnamed (the name is shared, not copied into every result).
fn answer(tool_name: &str, result: &ToolExecutionResult) -> Result<Payload, RpcError> {
    let tool_result = NamedResult { tool_name, result };
    Payload::encode(&ToolAnswer {
        success: result.success,
        tool_result,
    })
}

/// An [`InvokeResultPayload`](maitool_protocol::wire::methods::InvokeResultPayload) with a
/// `tool_result`, by reference: the same map on the wire.
#[derive(serde::Serialize)]
struct ToolAnswer<'a> {
    success: bool,
    tool_result: NamedResult<'a>,
}

struct InFlightGuard<'a>(&'a AtomicU64);

impl Drop for InFlightGuard<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl RunnerState {
    fn peer(&self) -> &RpcPeer {
        // Set right after the peer starts, before any request can be dispatched to us.
        self.peer
            .get()
            .expect("peer is set before requests are served")
    }

    fn health(&self) -> Result<Payload, RpcError> {
        Payload::encode(&HealthPayload {
            healthy: true,
            loaded_plugins: self.loaded_ids.lock().clone(),
            uptime_ms: self.started.elapsed().as_millis() as u64,
            in_flight: self.in_flight.load(Ordering::Relaxed),
        })
    }

    fn prepare_shutdown(&self) -> Result<Payload, RpcError> {
        self.draining.store(true, Ordering::Release);
        Payload::encode(&AckPayload {
            acknowledged: true,
            in_flight: self.in_flight.load(Ordering::Relaxed),
        })
    }

    fn shutdown(
        self: &Arc<Self>,
        request: IncomingMessage,
    ) -> BoxFuture<'static, Result<Payload, RpcError>> {
        let state = self.clone();
        async move {
            let payload: ShutdownPayload = request.payload().unwrap_or_default();
            state.draining.store(true, Ordering::Release);
            let drain = Duration::from_millis(payload.drain_timeout_ms.max(1));
            let deadline = Instant::now() + drain;
            while state.in_flight.load(Ordering::Relaxed) > 0 && Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            state.unload_all().await;
            let ack = AckPayload {
                acknowledged: true,
                in_flight: state.in_flight.load(Ordering::Relaxed),
            };
            // Stop after the acknowledgement has been queued.
            let stopper = state.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(20)).await;
                stopper.stop.notify_one();
            });
            Payload::encode(&ack)
        }
        .boxed()
    }

    fn config_updated(
        self: &Arc<Self>,
        request: IncomingMessage,
    ) -> BoxFuture<'static, Result<Payload, RpcError>> {
        let state = self.clone();
        async move {
            let update: ConfigUpdatedPayload = request.payload()?;
            let plugin_id = if update.plugin_id.is_empty() {
                request.plugin_id().to_owned()
            } else {
                update.plugin_id.clone()
            };
            let Some(plugin) = state.plugin(&plugin_id) else {
                return Err(RpcError::new(
                    ErrorCode::PluginNotFound,
                    format!("plugin {plugin_id} is not in this runner"),
                ));
            };
            let hooks = plugin.spec.hooks.clone();
            let tag = plugin.tag.clone();
            if (update.config_scope == "self" || update.config_scope.is_empty())
                && let Err(reason) = crate::log_forward::in_plugin_sync(tag.clone(), || {
                    hooks.configure(&update.config_data)
                })
            {
                return Payload::encode(&ConfigUpdatedResponse {
                    accepted: false,
                    reason: format!("invalid configuration: {reason}"),
                    ..ConfigUpdatedResponse::default()
                });
            }
            let scope = if update.config_scope.is_empty() {
                "self".to_owned()
            } else {
                update.config_scope
            };
            let outcome = crate::log_forward::in_plugin(
                tag,
                hooks.on_config_update(scope, update.config_data, update.config_version),
            )
            .await;
            let response = match outcome {
                Ok(()) => ConfigUpdatedResponse {
                    accepted: true,
                    reason: String::new(),
                    ..ConfigUpdatedResponse::default()
                },
                Err(reason) => ConfigUpdatedResponse {
                    accepted: false,
                    reason,
                    ..ConfigUpdatedResponse::default()
                },
            };
            Payload::encode(&response)
        }
        .boxed()
    }
}

/// The peer's request handler; a thin handle so handlers can own the state in their tasks.
struct RunnerHandler(Arc<RunnerState>);

impl RequestHandler for RunnerHandler {
    fn handle(&self, request: IncomingMessage) -> BoxFuture<'static, Result<Payload, RpcError>> {
        let state = &self.0;
        match request.method() {
            names::INVOKE_TOOL | names::INVOKE_ACTION => state.invoke(request),
            names::HEALTH => std::future::ready(state.health()).boxed(),
            names::PREPARE_SHUTDOWN => std::future::ready(state.prepare_shutdown()).boxed(),
            names::SHUTDOWN => state.shutdown(request),
            names::CONFIG_UPDATED => state.config_updated(request),
            other => std::future::ready(Err(RpcError::method_not_allowed(other))).boxed(),
        }
    }
}

#[cfg(test)]
mod tests;
