//! Isolation for provider calls: one misbehaving provider (an error, a panic, a hang) must
//! never take the registry, and with it every other tool source, down.

use std::any::Any;
use std::fmt;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::task::Poll;
use std::time::Duration;

use futures::FutureExt as _;

use crate::provider::ProviderError;

/// How a guarded provider call went wrong.
#[derive(Debug)]
pub(super) enum Failure {
    /// The provider returned an error.
    Error(ProviderError),
    /// The provider panicked; the panic message.
    Panicked(String),
    /// The provider did not answer in time.
    TimedOut(Duration),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Error(error) => write!(f, "{error}"),
            Failure::Panicked(message) => write!(f, "panicked: {message}"),
            Failure::TimedOut(limit) => write!(f, "did not answer within {limit:?}"),
        }
    }
}

/// Runs one provider call, turning a panic into [`Failure::Panicked`] and, when `limit` is set,
/// a hang into [`Failure::TimedOut`].
///
/// Pass the call as an `async` block so that a provider which does work (and panics) before
/// returning its future is caught too.
///
/// `AssertUnwindSafe` is sound here: the registry's own state is never borrowed mutably inside
/// the future, and the snapshot and index it reads are immutable. A panicking provider may
/// leave its *own* state inconsistent; it keeps answering for itself afterwards.
pub(super) async fn guarded<T>(
    call: impl Future<Output = Result<T, ProviderError>>,
    limit: Option<Duration>,
) -> Result<T, Failure> {
    let mut caught = std::pin::pin!(AssertUnwindSafe(call).catch_unwind());
    let outcome = match limit {
        // Most answers (an availability check against an index) are ready on the first poll:
        // those need no deadline, and a timer costs a clock read and a runtime lookup per call.
        // A synchronous hang in that poll could not be interrupted by a timer anyway.
        Some(limit) => match futures::poll!(caught.as_mut()) {
            Poll::Ready(outcome) => outcome,
            Poll::Pending => tokio::time::timeout(limit, caught)
                .await
                .map_err(|_| Failure::TimedOut(limit))?,
        },
        None => caught.await,
    };
    settled(outcome)
}

/// [`guarded`] without a time limit, for calls that may legitimately run long. Its future has
/// no room for a timer, which the `None` case of [`guarded`] still carries: it is built, moved
/// and dropped for every tool call.
pub(super) async fn unbounded<T>(
    call: impl Future<Output = Result<T, ProviderError>>,
) -> Result<T, Failure> {
    settled(AssertUnwindSafe(call).catch_unwind().await)
}

/// The outcome of a provider call that ran under `catch_unwind`.
fn settled<T>(
    outcome: Result<Result<T, ProviderError>, Box<dyn Any + Send>>,
) -> Result<T, Failure> {
    match outcome {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(error)) => Err(Failure::Error(error)),
        Err(payload) => Err(Failure::Panicked(panic_message(payload.as_ref()))),
    }
}

/// Runs one synchronous provider call that may decline to answer (`None`), turning a panic
/// into [`Failure::Panicked`]. `AssertUnwindSafe` is sound for the reasons given at
/// [`guarded`].
pub(super) fn guarded_now<T>(
    call: impl FnOnce() -> Option<Result<T, ProviderError>>,
) -> Option<Result<T, Failure>> {
    match std::panic::catch_unwind(AssertUnwindSafe(call)) {
        Ok(answer) => answer.map(|outcome| outcome.map_err(Failure::Error)),
        Err(payload) => Some(Err(Failure::Panicked(panic_message(payload.as_ref())))),
    }
}

/// The text of a panic payload: `panic!` produces a `&str` or a `String`.
fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "non-string panic payload".to_owned()
    }
}
