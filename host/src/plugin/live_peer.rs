//! A ready runner's connection, as the invoke path holds it, and what the supervisor learns
//! about how the runner ended.
//!
//! A call cut off by its runner's death is failed by the RPC layer the moment the socket
//! closes, often before the supervisor has reaped the process. The text the model and the
//! operator read should say what happened to the runner (`the runner was killed by signal
//! SIGKILL`), not which end of a socket closed first, so the provider waits a moment for
//! the supervisor's account ([`LivePeer::explain_cut_off`]).

use std::time::Duration;

use maitool_protocol::rpc::{DisconnectReason, RpcError, RpcPeer};
use maitool_protocol::wire::ErrorCode;
use tokio::sync::watch;

/// A ready runner's connection, with what its `runner.hello` said about reading calls.
#[derive(Clone)]
pub(crate) struct LivePeer {
    pub peer: RpcPeer,
    /// The runner's components read the execution context from the payload's `context`
    /// (`HelloPayload::reads_context`), so their `args` need only the context keys they
    /// declare.
    pub reads_context: bool,
    /// How this launch of the runner ended, once its supervisor knows.
    ended: watch::Receiver<Option<String>>,
}

/// The supervisor's side of [`LivePeer`]: where it records how the launch ended.
pub(crate) struct LaunchEnd(watch::Sender<Option<String>>);

impl LaunchEnd {
    /// Records `how` the runner ended, as a clause calls can fail with (`the runner exited
    /// with status 1`). The first record stands.
    pub(crate) fn record(&self, how: &str) {
        self.0.send_if_modified(|ended| {
            if ended.is_some() {
                return false;
            }
            *ended = Some(how.to_owned());
            true
        });
    }
}

impl LivePeer {
    /// The connection `peer` of a runner that said `reads_context`, and the handle its
    /// supervisor records the end of the launch with.
    pub(crate) fn new(peer: RpcPeer, reads_context: bool) -> (Self, LaunchEnd) {
        let (tx, ended) = watch::channel(None);
        let live = LivePeer {
            peer,
            reads_context,
            ended,
        };
        (live, LaunchEnd(tx))
    }

    /// The error a call cut off by this connection's end fails with: what happened to the
    /// runner when the supervisor records it within `patience`, else the connection's own
    /// reason.
    ///
    /// Errors other than `E_PLUGIN_CRASHED`, and connections closed with a reason of their
    /// own ([`RpcPeer::close_because`]), are returned as they are.
    pub(crate) async fn explain_cut_off(&self, err: RpcError, patience: Duration) -> RpcError {
        if err.code != ErrorCode::PluginCrashed {
            return err;
        }
        let reason = match self.peer.disconnect_reason() {
            None | Some(DisconnectReason::Abandoned(_)) => return err,
            Some(reason) => reason,
        };
        let mut ended = self.ended.clone();
        let recorded = tokio::time::timeout(patience, ended.wait_for(Option::is_some)).await;
        if let Ok(Ok(how)) = recorded
            && let Some(how) = how.as_ref()
        {
            return RpcError::crashed(how.clone());
        }
        match reason {
            DisconnectReason::PeerClosed => RpcError::crashed("the runner closed its connection"),
            _ => err,
        }
    }
}
