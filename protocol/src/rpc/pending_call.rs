//! A call that is on its way: sent, and waiting for its response.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use tokio::sync::oneshot;

use super::shared::{Delivery, Shared};
use super::{IncomingMessage, RpcError};

/// The response to a call made with [`RpcPeer::start_call`](super::RpcPeer::start_call): the
/// request was encoded and handed to the connection before this existed.
///
/// Resolves to the response frame, undecoded, whether or not it carries an error, or to the
/// error that ended the call (`E_TIMEOUT`, `E_PLUGIN_CRASHED`, or one raised while reading
/// the response). Dropping it before it resolves abandons the call: the call is forgotten
/// and the peer is sent the cancel message.
///
/// It holds only the response channel and the call's identity, so a caller that keeps it
/// across an `await` keeps a few words, not the request or its encoder.
#[must_use = "a call is abandoned (and the peer told to cancel it) when this is dropped"]
pub struct PendingCall<'a> {
    response: oneshot::Receiver<Delivery>,
    guard: CallGuard<'a>,
    method: &'a str,
    timeout_ms: u64,
}

impl<'a> PendingCall<'a> {
    pub(super) fn new(
        shared: &'a Shared,
        id: u64,
        response: oneshot::Receiver<Delivery>,
        method: &'a str,
        timeout_ms: u64,
    ) -> Self {
        PendingCall {
            response,
            guard: CallGuard {
                shared,
                id,
                armed: true,
            },
            method,
            timeout_ms,
        }
    }

    /// The request id the call was sent under.
    pub fn request_id(&self) -> u64 {
        self.guard.id
    }
}

impl fmt::Debug for PendingCall<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PendingCall")
            .field("method", &self.method)
            .field("request_id", &self.guard.id)
            .field("timeout_ms", &self.timeout_ms)
            .finish()
    }
}

impl Future for PendingCall<'_> {
    type Output = Result<IncomingMessage, RpcError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let delivery = ready!(Pin::new(&mut self.response).poll(cx));
        // Whatever ended the call also removed it from the table (and the sweeper told the
        // peer about a timeout): nothing is left for the guard to do.
        self.guard.armed = false;
        Poll::Ready(match delivery {
            Ok(Delivery::Response(message)) => Ok(message),
            Ok(Delivery::Failed(err)) => Err(err),
            Ok(Delivery::TimedOut) => Err(RpcError::timeout(self.method, self.timeout_ms)),
            Err(_) => Err(RpcError::crashed("connection closed")),
        })
    }
}

/// Abandons a call whose future ends without its response: forgets it and sends the cancel
/// message, unless the response or a disconnect got there first.
struct CallGuard<'a> {
    shared: &'a Shared,
    id: u64,
    armed: bool,
}

impl Drop for CallGuard<'_> {
    fn drop(&mut self) {
        if self.armed && self.shared.forget_call(self.id) {
            self.shared.send_cancel(self.id);
        }
    }
}

#[cfg(test)]
mod tests;
