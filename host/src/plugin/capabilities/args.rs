//! Reading a capability's arguments: every wrong type or missing value becomes an
//! `E_BAD_PAYLOAD` error that names the capability and the argument, so a plugin author sees
//! what to fix and the host keeps serving.

use maitool_protocol::JsonObject;
use maitool_protocol::capability::Capability;
use maitool_protocol::rpc::RpcError;
use maitool_protocol::wire::ErrorCode;
use serde_json::Value;

/// One call's arguments, with the capability's name for error messages.
#[derive(Debug, Clone, Copy)]
pub(super) struct Args<'a> {
    pub capability: Capability,
    pub args: &'a JsonObject,
}

impl<'a> Args<'a> {
    pub fn new(capability: Capability, args: &'a JsonObject) -> Self {
        Self { capability, args }
    }

    /// `E_BAD_PAYLOAD` about this capability.
    pub fn bad(&self, message: impl std::fmt::Display) -> RpcError {
        RpcError::new(
            ErrorCode::BadPayload,
            format!("{}: {message}", self.capability),
        )
    }

    /// `E_CAPABILITY_FAILED` about this capability.
    pub fn failed(&self, message: impl std::fmt::Display) -> RpcError {
        RpcError::new(
            ErrorCode::CapabilityFailed,
            format!("{} failed: {message}", self.capability),
        )
    }

    /// The raw value; JSON `null` counts as absent (the SDK sends `None` for unset options).
    pub fn value(&self, key: &str) -> Option<&'a Value> {
        self.args.get(key).filter(|value| !value.is_null())
    }

    /// A string argument; numbers are accepted as their text (MaiBot's host `str()`s them).
    pub fn opt_str(&self, key: &str) -> Result<Option<String>, RpcError> {
        match self.value(key) {
            None => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(Value::Number(number)) => Ok(Some(number.to_string())),
            Some(other) => Err(self.bad(format!(
                "argument `{key}` must be a string, not {}",
                kind(other)
            ))),
        }
    }

    /// A string argument, empty when absent.
    pub fn str_or_empty(&self, key: &str) -> Result<String, RpcError> {
        Ok(self.opt_str(key)?.unwrap_or_default())
    }

    /// A required, non-blank string argument.
    pub fn required_str(&self, key: &str) -> Result<String, RpcError> {
        self.first_str(&[key])
    }

    /// The first non-blank of several spellings of one argument (MaiBot accepts aliases such
    /// as `message_id`/`msg_id`); an error names them all when none is given.
    pub fn first_str(&self, keys: &[&str]) -> Result<String, RpcError> {
        for key in keys {
            if let Some(text) = self.opt_str(key)?
                && !text.trim().is_empty()
            {
                return Ok(text.trim().to_owned());
            }
        }
        let names: Vec<String> = keys.iter().map(|key| format!("`{key}`")).collect();
        Err(self.bad(format!("argument {} is required", names.join(" or "))))
    }

    /// A non-negative whole number, `default` when absent.
    pub fn count(&self, key: &str, default: usize) -> Result<usize, RpcError> {
        match self.value(key) {
            None => Ok(default),
            Some(value) => value
                .as_u64()
                .or_else(|| value.as_str().and_then(|text| text.trim().parse().ok()))
                .map(|n| n as usize)
                .ok_or_else(|| {
                    self.bad(format!(
                        "argument `{key}` must be a non-negative integer, not {value}"
                    ))
                }),
        }
    }

    /// A number (or a numeric string: the SDK passes times as text), `None` when absent.
    pub fn opt_f64(&self, key: &str) -> Result<Option<f64>, RpcError> {
        match self.value(key) {
            None => Ok(None),
            Some(value) => value
                .as_f64()
                .or_else(|| value.as_str().and_then(|text| text.trim().parse().ok()))
                .filter(|n: &f64| n.is_finite())
                .map(Some)
                .ok_or_else(|| {
                    self.bad(format!(
                        "argument `{key}` must be a number (Unix seconds), not {value}"
                    ))
                }),
        }
    }

    /// A boolean, `default` when absent.
    pub fn flag(&self, key: &str, default: bool) -> Result<bool, RpcError> {
        match self.value(key) {
            None => Ok(default),
            Some(Value::Bool(flag)) => Ok(*flag),
            Some(other) => Err(self.bad(format!(
                "argument `{key}` must be true or false, not {other}"
            ))),
        }
    }
}

/// A JSON value's type, for error messages.
pub(super) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}
