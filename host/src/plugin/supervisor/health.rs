//! The supervisor's health checks: one check with a quick re-check when it goes unanswered,
//! and what a failed one means for the runner and for the calls in flight.

use std::time::Duration;

use maitool_protocol::rpc::{RpcError, RpcPeer};
use maitool_protocol::wire::methods::{HealthPayload, names};
use maitool_protocol::wire::{EmptyPayload, ErrorCode};

use super::Supervisor;

/// The longest quick re-check after a health-check timeout.
const HEALTH_RECHECK_CAP: Duration = Duration::from_secs(5);

impl Supervisor {
    /// One health check, with a quick re-check when it goes unanswered, so that a host that
    /// was briefly too busy to read the answer does not kill a healthy runner (MaiBot #1896).
    ///
    /// Unanswered means a timeout, or a send queue still full at the re-check: a runner that
    /// stopped reading its socket never sees the check, and counting that as healthy would
    /// leave it `Ready`, failing every call with `E_BACK_PRESSURE`, forever.
    pub(super) async fn check_health(
        &self,
        peer: &RpcPeer,
        config: &crate::plugin::config::RuntimeConfig,
    ) -> Result<(), HealthFailure> {
        let limit = Duration::from_millis(config.health_check_timeout_ms);
        let first = peer
            .call::<_, HealthPayload>(names::HEALTH, "", &EmptyPayload {}, limit)
            .await;
        let err = match first {
            Ok(health) if health.healthy => return Ok(()),
            Ok(_) => return Err(HealthFailure::unhealthy()),
            Err(err) if unanswered(&err) => err,
            // A closed connection is handled by the disconnect branch.
            Err(_) => return Ok(()),
        };
        let recheck = limit.min(HEALTH_RECHECK_CAP);
        if err.code == ErrorCode::BackPressure {
            // A reading runner drains even a full queue within milliseconds; one second
            // tells a busy runner from one that stopped reading.
            tokio::time::sleep(recheck.min(Duration::from_secs(1))).await;
        }
        match peer
            .call::<_, HealthPayload>(names::HEALTH, "", &EmptyPayload {}, recheck)
            .await
        {
            Ok(health) if health.healthy => {
                tracing::warn!(runner = %self.runner.name, "health check unanswered ({err}), answered on the quick re-check: the host or the runner was busy, the runner is kept");
                Ok(())
            }
            Ok(_) => Err(HealthFailure::unhealthy()),
            Err(again) if again.code == ErrorCode::Timeout && err.code == ErrorCode::Timeout => {
                Err(HealthFailure::unanswered(format!(
                    "runner hung: health check timed out twice ({err}; then {again})"
                )))
            }
            Err(again) if unanswered(&again) => Err(HealthFailure::unanswered(format!(
                "runner hung: not reading its socket, health check unanswered twice ({err}; then {again})"
            ))),
            Err(_) => Ok(()),
        }
    }
}

/// Why a health check condemned a runner.
pub(super) struct HealthFailure {
    /// The exit reason recorded in the runner's status and log.
    pub(super) reason: String,
    /// Whether the runner stopped answering (else it answered that it is unhealthy).
    unanswered: bool,
}

impl HealthFailure {
    fn unhealthy() -> Self {
        Self {
            reason: "runner reported itself unhealthy".into(),
            unanswered: false,
        }
    }

    fn unanswered(reason: String) -> Self {
        Self {
            reason,
            unanswered: true,
        }
    }

    /// The error of the calls in flight when the runner is killed: usually collateral
    /// damage of another call that blocked the runner, so it says what happened to the
    /// runner rather than to the call.
    pub(super) fn for_callers(&self) -> &'static str {
        if self.unanswered {
            "the runner was restarted because it stopped answering health checks"
        } else {
            "the runner was restarted because it reported itself unhealthy"
        }
    }
}

/// The check never reached the runner or was never answered.
fn unanswered(err: &RpcError) -> bool {
    matches!(err.code, ErrorCode::Timeout | ErrorCode::BackPressure)
}
