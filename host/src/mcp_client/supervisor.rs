//! One task per enabled server: connect (with a timeout), expose the tools, refresh them on
//! `tools/list_changed`, watch liveness, withdraw the tools when the server dies, and
//! reconnect with exponential backoff until the provider closes.

use std::sync::Arc;
use std::time::Duration;

use rmcp::Peer;
use rmcp::model::{
    ClientRequest, ListToolsRequest, PingRequest, ServerNotification, SubscriptionFilter, Tool,
};
use rmcp::service::{PeerRequestOptions, QuitReason, RoleClient, RunningServiceCancellationToken};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::connect::{ConnectError, Established, connect};
use super::handler::McpClientHandler;
use super::listing::{ListError, list_all_tools};
use super::process::StdioProcess;
use super::shared::Shared;
use super::slot::{Connected, LivePeer, ServerSlot};
use super::status::McpServerState;
use crate::error_text::chain;

/// How long a closing connection may take to wind down its service loop.
const CLOSE_GRACE: Duration = Duration::from_secs(5);
/// The same for a connection whose server is dead or hung.
const DEAD_CLOSE_GRACE: Duration = Duration::from_millis(500);
/// A connection that lasted this long resets the reconnect backoff.
const STABLE_CONNECTION: Duration = Duration::from_secs(10);

/// Why a connection attempt (connect, then list the tools) failed.
#[derive(Debug, thiserror::Error)]
enum AttemptError {
    /// No connection.
    #[error(transparent)]
    Connect(#[from] ConnectError),
    /// Connected, but the tools could not be listed.
    #[error("tools/list failed")]
    List(#[source] ListError),
    /// Neither within the connect timeout.
    #[error("no connection within {:.1} s (connect timeout)", .0.as_secs_f64())]
    Timeout(Duration),
}

/// Runs the server's lifecycle until shutdown. `first_attempt` fires once the first
/// connection attempt has succeeded or failed.
pub async fn supervise(
    shared: Arc<Shared>,
    slot: Arc<ServerSlot>,
    first_attempt: oneshot::Sender<()>,
) {
    let mut first_attempt = Some(first_attempt);
    let mut failures: u32 = 0;
    let mut ever_connected = false;
    let shutdown = shared.shutdown.clone();
    loop {
        let attempt = tokio::select! {
            biased;
            _ = shutdown.cancelled() => break,
            attempt = establish(&shared, &slot) => attempt,
        };
        match attempt {
            Ok((session, tools)) => {
                let connected_at = tokio::time::Instant::now();
                tracing::info!(
                    server = %slot.name,
                    protocol_version = %session.protocol_version,
                    tools = tools.len(),
                    "MCP server connected"
                );
                slot.set_connected(
                    Connected {
                        live: LivePeer {
                            peer: session.peer.clone(),
                            protocol_version: session.protocol_version.clone(),
                        },
                        server_info: session.server_info.clone(),
                        tools,
                        pid: session.process.as_ref().map(StdioProcess::pid),
                    },
                    ever_connected,
                );
                ever_connected = true;
                shared.publish();
                if let Some(done) = first_attempt.take() {
                    let _ = done.send(());
                }
                let ended = run_connected(&shared, &slot, session).await;
                match ended {
                    Ended::Shutdown(session) => {
                        slot.set_down(McpServerState::Closed, None);
                        shared.publish();
                        session.close(Closing::Graceful).await;
                        break;
                    }
                    Ended::Died(session, reason) => {
                        tracing::warn!(server = %slot.name, "MCP server lost: {reason}; withdrawing its tools");
                        slot.set_down(McpServerState::Reconnecting, Some(reason));
                        shared.publish();
                        session.close(Closing::Dead).await;
                        // A server that crashes right after connecting keeps backing off
                        // instead of restarting twice a second.
                        if connected_at.elapsed() >= STABLE_CONNECTION {
                            failures = 0;
                        } else {
                            failures = failures.saturating_add(1);
                        }
                    }
                }
            }
            Err(error) => {
                // The operator reads it in logs and in `status`: one line, causes included.
                let error = chain(&error);
                if failures == 0 {
                    tracing::warn!(server = %slot.name, "MCP server connection failed: {error}");
                } else {
                    tracing::debug!(server = %slot.name, failures, "MCP server connection failed again: {error}");
                }
                slot.set_attempt_failed(error, ever_connected);
                failures = failures.saturating_add(1);
                if let Some(done) = first_attempt.take() {
                    let _ = done.send(());
                }
            }
        }
        if !shared.config.reconnect.enable {
            // MaiBot behaviour: a failed or dead server stays down.
            shutdown.cancelled().await;
            break;
        }
        let delay = with_jitter(shared.config.reconnect_delay(failures));
        tokio::select! {
            biased;
            _ = shutdown.cancelled() => break,
            _ = tokio::time::sleep(delay) => {}
        }
    }
    if slot.state() != McpServerState::Disabled {
        slot.set_down(McpServerState::Closed, None);
    }
    if let Some(done) = first_attempt.take() {
        let _ = done.send(());
    }
}

/// Adds up to 20 % so that many hosts do not hammer a restarted server in lockstep.
fn with_jitter(delay: Duration) -> Duration {
    let mut byte = [0u8; 1];
    match getrandom::fill(&mut byte) {
        Ok(()) => delay.mul_f64(1.0 + f64::from(byte[0]) / 255.0 * 0.2),
        Err(_) => delay,
    }
}

/// Connects and lists the tools, both within the connect timeout.
async fn establish(
    shared: &Shared,
    slot: &ServerSlot,
) -> Result<(Session, Vec<Tool>), AttemptError> {
    let timeout = slot
        .config
        .connect_timeout(shared.config.connect_timeout_seconds);
    let handler = McpClientHandler::new(
        slot.name.clone(),
        shared.client.clone(),
        slot.tools_changed.clone(),
    );
    let attempt = async {
        let established = connect(&slot.config, handler).await?;
        let session = Session::new(established);
        match list_all_tools(&session.peer, &slot.name).await {
            Ok(tools) => Ok((session, tools)),
            Err(err) => {
                session.close(Closing::Dead).await;
                Err(AttemptError::List(err))
            }
        }
    };
    match tokio::time::timeout(timeout, attempt).await {
        Ok(result) => result,
        // Dropping the attempt kills a spawned process (see `StdioProcess`'s drop).
        Err(_) => Err(AttemptError::Timeout(timeout)),
    }
}

enum Ended {
    Shutdown(Session),
    Died(Session, String),
}

async fn run_connected(shared: &Shared, slot: &ServerSlot, mut session: Session) -> Ended {
    let listener = session.listen_for_tool_changes(slot);
    let interval = shared.config.health_check_interval_seconds;
    let mut health = (interval > 0.0).then(|| {
        let period = Duration::from_secs_f64(interval);
        tokio::time::interval_at(tokio::time::Instant::now() + period, period)
    });
    let ended = loop {
        tokio::select! {
            biased;
            _ = shared.shutdown.cancelled() => break None,
            quit = &mut session.quit => {
                session.quit_done = true;
                break Some(match quit {
                    Ok(Ok(QuitReason::Closed)) => "the connection closed".to_owned(),
                    Ok(Ok(QuitReason::Cancelled)) => "the connection was cancelled".to_owned(),
                    Ok(Ok(other)) => format!("the connection ended: {other:?}"),
                    Ok(Err(err)) | Err(err) => format!("the connection task failed: {err}"),
                });
            }
            _ = slot.tools_changed.notified() => {
                // Bounded and interruptible: a hung server must not pin the supervisor.
                let timeout = slot.config.connect_timeout(shared.config.connect_timeout_seconds);
                let refresh = tokio::select! {
                    biased;
                    _ = shared.shutdown.cancelled() => break None,
                    refresh = tokio::time::timeout(timeout, list_all_tools(&session.peer, &slot.name)) => refresh,
                };
                match refresh {
                    Err(_) => {
                        break Some(format!(
                            "tools/list did not answer within {:.1} s",
                            timeout.as_secs_f64()
                        ));
                    }
                    Ok(Ok(tools)) => {
                        tracing::info!(server = %slot.name, tools = tools.len(), "MCP server tool list refreshed");
                        slot.set_tools(tools);
                        shared.publish();
                    }
                    Ok(Err(err)) if session.peer.is_transport_closed() => {
                        break Some(format!("tools/list failed: {}", chain(&err)));
                    }
                    Ok(Err(err)) => {
                        let err = chain(&err);
                        tracing::warn!(server = %slot.name, "MCP tool list refresh failed: {err}");
                        slot.record_error(format!("tools/list refresh failed: {err}"));
                    }
                }
            }
            _ = tick(&mut health) => {
                let timeout = slot.config.http_timeout().min(Duration::from_secs(30));
                let alive = tokio::select! {
                    biased;
                    _ = shared.shutdown.cancelled() => break None,
                    alive = session.check_alive(timeout) => alive,
                };
                if let Err(err) = alive {
                    break Some(format!("health check failed: {}", chain(&err)));
                }
            }
        }
    };
    if let Some(listener) = listener {
        listener.stop(ended.is_none()).await;
    }
    match ended {
        None => Ended::Shutdown(session),
        Some(reason) => Ended::Died(session, reason),
    }
}

async fn tick(interval: &mut Option<tokio::time::Interval>) {
    match interval {
        Some(interval) => {
            interval.tick().await;
        }
        None => std::future::pending::<()>().await,
    }
}

/// A connection owned by its supervisor.
struct Session {
    peer: Peer<RoleClient>,
    protocol_version: String,
    modern: bool,
    tools_list_changed: bool,
    server_info: Option<rmcp::model::Implementation>,
    cancel: Option<RunningServiceCancellationToken>,
    /// The rmcp service loop, ending when the transport closes.
    quit: JoinHandle<Result<QuitReason, tokio::task::JoinError>>,
    quit_done: bool,
    process: Option<StdioProcess>,
}

impl Session {
    fn new(established: Established) -> Self {
        let Established {
            running,
            process,
            protocol_version,
            server_info,
            tools_list_changed,
        } = established;
        Self {
            peer: running.peer().clone(),
            modern: !protocol_version.has_initialize(),
            protocol_version: protocol_version.to_string(),
            tools_list_changed,
            server_info,
            cancel: Some(running.cancellation_token()),
            quit: tokio::spawn(running.waiting()),
            quit_done: false,
            process,
        }
    }

    /// On 2026-07-28 connections list_changed arrives only on a `subscriptions/listen`
    /// stream; open one when the server announces `tools.listChanged`.
    fn listen_for_tool_changes(&self, slot: &ServerSlot) -> Option<ToolChangeListener> {
        if !(self.modern && self.tools_list_changed) {
            return None;
        }
        let peer = self.peer.clone();
        let notify = slot.tools_changed.clone();
        let server = slot.name.clone();
        let stop = CancellationToken::new();
        let stopped = stop.clone();
        let task = tokio::spawn(async move {
            let filter = SubscriptionFilter::builder().tools_list_changed().build();
            let mut subscription = match peer.listen(filter).await {
                Ok(subscription) => subscription,
                Err(err) => {
                    tracing::debug!(server = %server, "subscriptions/listen unavailable: {err}");
                    return;
                }
            };
            loop {
                let next = tokio::select! {
                    biased;
                    _ = stopped.cancelled() => {
                        // Ended politely: rmcp servers wait up to 5 s for open handlers
                        // (this subscription's among them) after their stdin closes.
                        if let Err(err) = subscription.cancel().await {
                            tracing::debug!(server = %server, "cancelling the tool-change subscription failed: {err}");
                        } else {
                            write_barrier(&peer, &server).await;
                        }
                        break;
                    }
                    next = subscription.next() => next,
                };
                match next {
                    Ok(Some(ServerNotification::ToolListChangedNotification(_))) => {
                        notify.notify_one();
                    }
                    Ok(Some(_)) => {}
                    Ok(None) => break,
                    Err(err) => {
                        tracing::debug!(server = %server, "tool-change subscription ended: {err}");
                        break;
                    }
                }
            }
        });
        Some(ToolChangeListener { stop, task })
    }

    /// `ping` on legacy connections; 2026-07-28 removed ping, so a first `tools/list`
    /// page stands in there.
    async fn check_alive(&self, timeout: Duration) -> Result<(), rmcp::ServiceError> {
        let request = if self.modern {
            ClientRequest::ListToolsRequest(ListToolsRequest::default())
        } else {
            ClientRequest::PingRequest(PingRequest::default())
        };
        let handle = self
            .peer
            .send_request_with_option(request, PeerRequestOptions::with_timeout(timeout))
            .await?;
        handle.await_response().await.map(|_| ())
    }

    /// Ends the service loop (closing the transport, hence the server's stdin), then stops
    /// the process group: politely on shutdown, at once when the server is dead or hung.
    async fn close(mut self, how: Closing) {
        if let Some(cancel) = self.cancel.take() {
            cancel.cancel();
        }
        let grace = match how {
            Closing::Graceful => CLOSE_GRACE,
            Closing::Dead => DEAD_CLOSE_GRACE,
        };
        if !self.quit_done && tokio::time::timeout(grace, &mut self.quit).await.is_err() {
            tracing::debug!(protocol_version = %self.protocol_version, "MCP service loop did not end in time");
        }
        if let Some(mut process) = self.process.take() {
            match how {
                Closing::Graceful => process.shutdown().await,
                Closing::Dead => process.kill().await,
            }
        }
    }
}

/// Returns once everything queued for the server before it has been written: `cancel()` only
/// queues the cancel notification in rmcp's service loop, and closing the session right after
/// could end that loop before it wrote it. The server then kept the subscription open, waited
/// for it after its stdin closed, and was stopped by SIGTERM instead of exiting on its own (seen
/// under CPU load, where the loop ran late). Messages go out in order, so an answered request
/// proves the notification went first. 2026-07-28 has no `ping`; a first `tools/list` page
/// stands in, as in `check_alive`. Bounded by the listener's cancel grace.
async fn write_barrier(peer: &Peer<RoleClient>, server: &str) {
    let barrier = ClientRequest::ListToolsRequest(ListToolsRequest::default());
    if let Err(err) = peer.send_request(barrier).await {
        tracing::debug!(server = %server, "the request after the subscription's cancel failed: {err}");
    }
}

/// The task that follows a 2026-07-28 server's `subscriptions/listen` stream.
struct ToolChangeListener {
    stop: CancellationToken,
    task: JoinHandle<()>,
}

impl ToolChangeListener {
    /// How long a polite cancel may take before the task is dropped.
    const CANCEL_GRACE: Duration = Duration::from_millis(500);

    /// On shutdown the subscription is cancelled on the wire, so the server can exit as soon
    /// as its stdin closes; a dead or hung connection just drops it.
    async fn stop(mut self, politely: bool) {
        if politely {
            self.stop.cancel();
            if tokio::time::timeout(Self::CANCEL_GRACE, &mut self.task)
                .await
                .is_ok()
            {
                return;
            }
        }
        self.task.abort();
    }
}

/// How a session ends.
#[derive(Debug, Clone, Copy)]
enum Closing {
    /// Shutdown: the server may exit on its own (stdin closed, then SIGTERM).
    Graceful,
    /// The server died or hung: kill it now and reconnect.
    Dead,
}

impl Drop for Session {
    fn drop(&mut self) {
        // A session dropped without `close` (a connect attempt that timed out) must not
        // leave its service loop, and an HTTP session with it, running.
        if let Some(cancel) = self.cancel.take() {
            cancel.cancel();
        }
    }
}

#[cfg(test)]
mod tests;
