use std::fmt;
use std::str::FromStr;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use crate::model::JsonObject;

/// An error code on the wire: MaiBot's string codes plus maitool's additions.
///
/// Serialized as its string (`"E_TIMEOUT"`). A code this version does not know survives a round
/// trip as [`ErrorCode::Other`], so a newer peer's codes are never lost.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub enum ErrorCode {
    /// `OK`: no error.
    Ok,
    /// `E_UNKNOWN`: an unclassified failure (also a handler panic).
    #[default]
    Unknown,
    /// `E_TIMEOUT`: the request did not complete within its deadline.
    Timeout,
    /// `E_BAD_PAYLOAD`: a frame or payload could not be decoded or encoded.
    BadPayload,
    /// `E_PROTOCOL_MISMATCH`: incompatible protocol versions or a broken handshake.
    ProtocolMismatch,
    /// `E_SHUTTING_DOWN`: the peer is stopping and refuses new work.
    ShuttingDown,
    /// `E_UNAUTHORIZED`: bad session token or credentials.
    Unauthorized,
    /// `E_METHOD_NOT_ALLOWED`: unknown method, or one the caller may not use.
    MethodNotAllowed,
    /// `E_BACK_PRESSURE`: the send queue is full; retry later.
    BackPressure,
    /// `E_HOST_OVERLOADED`: the host refuses work because it is overloaded.
    HostOverloaded,
    /// `E_PLUGIN_CRASHED`: the connection to the runner is gone.
    PluginCrashed,
    /// `E_PLUGIN_NOT_FOUND`: no such plugin is loaded.
    PluginNotFound,
    /// `E_RELOAD_IN_PROGRESS`: a reload is already running.
    ReloadInProgress,
    /// `E_CAPABILITY_DENIED`: the plugin lacks the capability it called.
    CapabilityDenied,
    /// `E_CAPABILITY_FAILED`: the capability ran and failed.
    CapabilityFailed,
    /// `E_CANCELLED` (maitool): the caller abandoned the request.
    Cancelled,
    /// `E_TOOL_NOT_FOUND` (maitool): no such tool or component.
    ToolNotFound,
    /// Any other code, kept verbatim.
    Other(String),
}

/// The known codes and their wire strings, in one place so the two directions cannot drift.
const KNOWN: &[(ErrorCode, &str)] = &[
    (ErrorCode::Ok, "OK"),
    (ErrorCode::Unknown, "E_UNKNOWN"),
    (ErrorCode::Timeout, "E_TIMEOUT"),
    (ErrorCode::BadPayload, "E_BAD_PAYLOAD"),
    (ErrorCode::ProtocolMismatch, "E_PROTOCOL_MISMATCH"),
    (ErrorCode::ShuttingDown, "E_SHUTTING_DOWN"),
    (ErrorCode::Unauthorized, "E_UNAUTHORIZED"),
    (ErrorCode::MethodNotAllowed, "E_METHOD_NOT_ALLOWED"),
    (ErrorCode::BackPressure, "E_BACK_PRESSURE"),
    (ErrorCode::HostOverloaded, "E_HOST_OVERLOADED"),
    (ErrorCode::PluginCrashed, "E_PLUGIN_CRASHED"),
    (ErrorCode::PluginNotFound, "E_PLUGIN_NOT_FOUND"),
    (ErrorCode::ReloadInProgress, "E_RELOAD_IN_PROGRESS"),
    (ErrorCode::CapabilityDenied, "E_CAPABILITY_DENIED"),
    (ErrorCode::CapabilityFailed, "E_CAPABILITY_FAILED"),
    (ErrorCode::Cancelled, "E_CANCELLED"),
    (ErrorCode::ToolNotFound, "E_TOOL_NOT_FOUND"),
];

impl ErrorCode {
    /// Every code this version knows, in table order (not [`ErrorCode::Other`]).
    pub fn known() -> impl Iterator<Item = &'static ErrorCode> {
        KNOWN.iter().map(|(code, _)| code)
    }

    /// The wire string of this code.
    pub fn as_str(&self) -> &str {
        if let ErrorCode::Other(code) = self {
            return code;
        }
        KNOWN
            .iter()
            .find(|(code, _)| code == self)
            .map(|(_, text)| *text)
            .unwrap_or("E_UNKNOWN")
    }

    /// Whether a MaiBot 1.0.0 peer knows this code. MaiBot's runner converts every error
    /// code it receives through its `ErrorCode` enum, and an unknown one raises inside its
    /// receive loop, so a host must never send it one of maitool's additions.
    pub fn is_maibot_code(&self) -> bool {
        !matches!(
            self,
            ErrorCode::Cancelled | ErrorCode::ToolNotFound | ErrorCode::Other(_)
        )
    }

    /// The nearest code a MaiBot 1.0.0 peer knows: the code itself when it knows it,
    /// `E_TIMEOUT` for an abandoned request, `E_METHOD_NOT_ALLOWED` for an unknown tool or
    /// component (MaiBot's answer to an unknown component), `E_UNKNOWN` otherwise.
    ///
    /// ```
    /// use maitool_protocol::wire::ErrorCode;
    ///
    /// assert_eq!(ErrorCode::CapabilityDenied.to_maibot(), ErrorCode::CapabilityDenied);
    /// assert_eq!(ErrorCode::ToolNotFound.to_maibot(), ErrorCode::MethodNotAllowed);
    /// assert_eq!(ErrorCode::Other("E_NEW".into()).to_maibot(), ErrorCode::Unknown);
    /// ```
    pub fn to_maibot(&self) -> ErrorCode {
        match self {
            ErrorCode::Cancelled => ErrorCode::Timeout,
            ErrorCode::ToolNotFound => ErrorCode::MethodNotAllowed,
            ErrorCode::Other(_) => ErrorCode::Unknown,
            known => known.clone(),
        }
    }

    /// The code for a wire string; unknown strings become [`ErrorCode::Other`].
    pub fn from_wire(text: &str) -> ErrorCode {
        KNOWN
            .iter()
            .find(|(_, known)| *known == text)
            .map(|(code, _)| code.clone())
            .unwrap_or_else(|| ErrorCode::Other(text.to_owned()))
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ErrorCode {
    type Err = std::convert::Infallible;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Ok(ErrorCode::from_wire(text))
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ErrorCode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct CodeVisitor;

        impl Visitor<'_> for CodeVisitor {
            type Value = ErrorCode;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an error code string such as \"E_TIMEOUT\"")
            }

            fn visit_str<E: de::Error>(self, text: &str) -> Result<ErrorCode, E> {
                Ok(ErrorCode::from_wire(text))
            }

            // A peer that packs strings as raw bytes (msgpack without use_bin_type) still works.
            fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<ErrorCode, E> {
                std::str::from_utf8(bytes)
                    .map(ErrorCode::from_wire)
                    .map_err(|_| E::invalid_value(de::Unexpected::Bytes(bytes), &self))
            }

            // MaiBot's `RPCError.from_dict` defaults a missing code to E_UNKNOWN.
            fn visit_unit<E: de::Error>(self) -> Result<ErrorCode, E> {
                Ok(ErrorCode::Unknown)
            }
        }

        deserializer.deserialize_str(CodeVisitor)
    }
}

/// The `error` member of a response envelope: `{code, message, details}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ErrorBody {
    /// The error code; `E_UNKNOWN` when the peer left it out.
    #[serde(default)]
    pub code: ErrorCode,
    /// A human-readable description.
    #[serde(default)]
    pub message: String,
    /// Structured extra data; an absent or nil value reads as an empty map.
    #[serde(default, deserialize_with = "nil_as_empty")]
    pub details: JsonObject,
}

impl ErrorBody {
    /// An error body without details.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            details: JsonObject::new(),
        }
    }
}

fn nil_as_empty<'de, D: Deserializer<'de>>(deserializer: D) -> Result<JsonObject, D::Error> {
    Ok(Option::<JsonObject>::deserialize(deserializer)?.unwrap_or_default())
}
