//! Connects to the host, loads plugins (`load.rs`), serves the host's requests
//! (`requests.rs`) until told to stop.

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
use maitool_protocol::ToolExecutionResult;
use maitool_protocol::pool_token::TokenProof;
use maitool_protocol::rpc::{
    IncomingMessage, Payload, PeerConfig, QuietUnixStream, RpcError, RpcPeer,
};
use maitool_protocol::wire::methods::{
    AckPayload, DrainingPayload, HelloPayload, HelloResponsePayload, names,
};
use maitool_protocol::wire::{ErrorCode, InvokeView, SUPPORTED_PROTOCOL_VERSIONS};
use tokio::sync::Notify;

mod apis;
mod hooks;
mod load;
mod message_flow;
mod requests;

use self::load::{REGISTRATION_TIMEOUT, load_plugins};
use self::requests::{InFlightGuard, RunnerHandler, answer, execution_context};

use crate::accepted_links::AcceptedLinks;
use crate::log_forward::LogForwarder;
use crate::{
    ApiComponent, ComponentHandler, Handler, HookComponent, HostClient, InvocationContext,
    LaunchEnv, PluginSpec, RUNNER_VERSION, RunnerError,
};

const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
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
    // Dialling in as a pool member is decided by the environment alone, so that a plugin
    // runs as one without a code change.
    if let Some(pool) = crate::pool::member_env() {
        crate::pool::run_member(pool, plugins, options);
    }
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
    let runtime = match build_runtime(&options) {
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

/// The runner's Tokio runtime: current-thread unless `options` asks for worker threads.
pub(crate) fn build_runtime(options: &RunnerOptions) -> std::io::Result<tokio::runtime::Runtime> {
    match options.worker_threads {
        Some(threads) if threads > 1 => tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads)
            .enable_all()
            .build(),
        _ => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build(),
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
        .and_then(quiet)
        .map_err(|source| RunnerError::Connect {
            address: env.address.clone(),
            source,
        })?;
    serve_stream(stream, env, plugins, Some(forwarder)).await
}

/// The connection re-registered as a [`QuietUnixStream`]: the host reading an answer must not
/// wake the runner, which by then waits for the next request (without it, each call woke the
/// runner twice when the host took longer than a moment to send the next one).
fn quiet(stream: Stream) -> std::io::Result<QuietUnixStream> {
    let Stream::UdSocket(stream) = stream;
    let socket = std::os::fd::OwnedFd::try_from(stream)?;
    QuietUnixStream::new(std::os::unix::net::UnixStream::from(socket))
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
    serve_connection(stream, env, Membership::default(), plugins, forwarder, None)
        .await
        .map(|_| ())
}

/// What a pool member adds to its `runner.hello`; empty for a runner the host launched.
#[derive(Debug, Clone, Default)]
pub(crate) struct Membership {
    pub pool: String,
    pub member: String,
    pub runner_version: String,
    /// Counts this connection from its `runner.ready` to its end, for the member's probes.
    pub links: Option<Arc<AcceptedLinks>>,
    /// The proof of the pool token, bound to this connection.
    pub token_proof: Option<TokenProof>,
}

/// How a served connection ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ended {
    /// The connection closed, or the host asked the runner to stop.
    Closed,
    /// The runner drained (`runner.draining`) and left.
    Drained,
}

/// How long a draining member waits for the calls it was sent: a Kubernetes pod's default
/// grace period is 30 s, and the member must leave before its SIGKILL.
const DRAIN_LIMIT: Duration = Duration::from_secs(25);
/// How long nothing must run before a draining member leaves: calls the host routed just
/// before it read `runner.draining` arrive within this.
const DRAIN_QUIET: Duration = Duration::from_millis(100);

/// [`serve_stream`] for a launched runner or a pool member (`membership`), which drains when
/// `drain` turns true: it says `runner.draining`, serves what was sent, then leaves.
pub(crate) async fn serve_connection<IO>(
    stream: IO,
    env: LaunchEnv,
    membership: Membership,
    plugins: Vec<PluginSpec>,
    forwarder: Option<LogForwarder>,
    drain: Option<tokio::sync::watch::Receiver<bool>>,
) -> Result<Ended, RunnerError>
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
        pool: membership.pool,
        member: membership.member,
        runner_version: membership.runner_version,
        token_proof: membership.token_proof,
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
    let _accepted = membership.links.as_ref().map(AcceptedLinks::accepted);

    let draining = async {
        match drain {
            Some(mut drain) => {
                if drain.wait_for(|draining| *draining).await.is_err() {
                    std::future::pending::<()>().await;
                }
            }
            None => std::future::pending().await,
        }
    };
    let ended = tokio::select! {
        _ = peer.closed() => Ended::Closed,
        _ = state.stop.notified() => Ended::Closed,
        _ = draining => {
            drain_connection(&state, &peer).await;
            Ended::Drained
        }
    };
    state.unload_all().await;
    if let Some(forwarder) = &forwarder {
        forwarder.flush_now();
    }
    // Waited for: the process exits right after, and records still queued (the last call's,
    // in a one-shot `maitool call`) would be lost with the runtime.
    peer.close_flushed().await;
    Ok(ended)
}

/// Tells the host this member drains, then serves what the host already sent until nothing
/// has run for [`DRAIN_QUIET`] (at most [`DRAIN_LIMIT`]).
async fn drain_connection(state: &RunnerState, peer: &RpcPeer) {
    let payload = DrainingPayload {
        reason: "the member is stopping (SIGTERM)".into(),
        in_flight: state.in_flight.load(Ordering::Relaxed),
    };
    match peer
        .call::<_, AckPayload>(names::DRAINING, "", &payload, HANDSHAKE_TIMEOUT)
        .await
    {
        Ok(_) => tracing::info!("draining: the host routes no new call here"),
        Err(err) => tracing::warn!("runner.draining was not acknowledged: {err}"),
    }
    let started = Instant::now();
    let mut quiet_since = Instant::now();
    while !peer.is_closed() {
        if peer.serving() > 0 {
            quiet_since = Instant::now();
        } else if quiet_since.elapsed() >= DRAIN_QUIET {
            break;
        }
        if started.elapsed() >= DRAIN_LIMIT {
            tracing::warn!(
                "draining: {} calls still running after {} s; leaving",
                peer.serving(),
                DRAIN_LIMIT.as_secs()
            );
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
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
    /// Hook handlers by component name.
    hook_handlers: foldhash::HashMap<Arc<str>, Arc<dyn HookComponent>>,
    /// APIs by handler name.
    apis: foldhash::HashMap<Arc<str>, Arc<dyn ApiComponent>>,
    /// Commands and event handlers, by name (`message_flow.rs`).
    message_handlers: message_flow::MessageHandlers,
    loaded: AtomicBool,
    /// Why the plugin's configuration is invalid, while it waits for a valid one: it
    /// registered its components with this `config_error` (the host pauses them) and has not
    /// run `on_load`; a valid `plugin.config_updated` finishes the load.
    awaiting_config: parking_lot::Mutex<Option<String>>,
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
                    .filter_map(|c| match &c.handler {
                        Handler::Tool(tool) => {
                            Some((Arc::from(c.declaration.name.as_str()), tool.clone()))
                        }
                        _ => None,
                    })
                    .collect();
                let hook_handlers = spec
                    .hook_handlers
                    .iter()
                    .map(|h| (Arc::from(h.declaration.name.as_str()), h.handler.clone()))
                    .collect();
                let apis = spec
                    .apis
                    .iter()
                    .map(|a| (Arc::from(a.handler_name.as_str()), a.handler.clone()))
                    .collect();
                LoadedPlugin {
                    tag: Arc::from(spec.id.as_str()),
                    message_handlers: message_flow::MessageHandlers::of(&spec),
                    spec,
                    handlers,
                    hook_handlers,
                    apis,
                    loaded: AtomicBool::new(false),
                    awaiting_config: parking_lot::Mutex::new(None),
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

#[cfg(test)]
mod tests;
