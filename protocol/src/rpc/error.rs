use crate::model::JsonObject;
use crate::wire::{ErrorBody, ErrorCode};

/// An RPC-level error: a wire [`ErrorCode`], a message and structured details.
///
/// Displayed as `[CODE] message`, like MaiBot's `RPCError`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("[{code}] {message}")]
pub struct RpcError {
    /// The error code sent on (or received from) the wire.
    pub code: ErrorCode,
    /// A human-readable description.
    pub message: String,
    /// Structured extra data.
    pub details: JsonObject,
}

impl RpcError {
    /// An error with `code` and `message` and no details.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            details: JsonObject::new(),
        }
    }

    /// Adds structured details.
    pub fn with_details(mut self, details: JsonObject) -> Self {
        self.details = details;
        self
    }

    /// `E_TIMEOUT`: "request METHOD timed out after MSms".
    pub fn timeout(method: &str, timeout_ms: u64) -> Self {
        Self::new(
            ErrorCode::Timeout,
            format!("request {method} timed out after {timeout_ms}ms"),
        )
    }

    /// `E_PLUGIN_CRASHED`: the connection to the peer is gone.
    pub fn crashed(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::PluginCrashed, message)
    }

    /// `E_SHUTTING_DOWN`: the peer is stopping.
    pub fn shutting_down(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::ShuttingDown, message)
    }

    /// `E_BACK_PRESSURE`: the send queue is full.
    pub fn back_pressure(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::BackPressure, message)
    }

    /// `E_BAD_PAYLOAD`: a payload could not be encoded or decoded.
    pub fn bad_payload(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::BadPayload, message)
    }

    /// `E_METHOD_NOT_ALLOWED`: "method not allowed: METHOD".
    pub fn method_not_allowed(method: &str) -> Self {
        Self::new(
            ErrorCode::MethodNotAllowed,
            format!("method not allowed: {method}"),
        )
    }

    /// `E_CANCELLED`: the request was abandoned.
    pub fn cancelled(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Cancelled, message)
    }

    /// The error carried by a response's `error` member.
    pub fn from_body(body: ErrorBody) -> Self {
        Self {
            code: body.code,
            message: body.message,
            details: body.details,
        }
    }

    /// The `error` member of an error response.
    pub fn to_body(&self) -> ErrorBody {
        ErrorBody {
            code: self.code.clone(),
            message: self.message.clone(),
            details: self.details.clone(),
        }
    }
}

impl From<ErrorBody> for RpcError {
    fn from(body: ErrorBody) -> Self {
        Self::from_body(body)
    }
}
