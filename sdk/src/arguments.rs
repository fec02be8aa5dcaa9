//! Decoding a tool's arguments into its own type.

use maitool_protocol::JsonObject;
use maitool_protocol::wire::methods::CONTEXT_ARG_KEYS;
use maitool_protocol::wire::{EncodedValue, WireError};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::ToolError;
use crate::schema::property_names;

/// Context keys a host adds to arguments (MaiBot convention). They are removed before
/// the arguments are deserialized unless the tool declares a parameter of that name (and
/// maitool's host sends only those to maitool's runner).
pub(crate) const CONTEXT_KEYS: &[&str] = &CONTEXT_ARG_KEYS;

/// Decodes one tool's arguments: straight from the frame's MessagePack into the tool's
/// argument type, without the context keys the tool did not declare (so a
/// `#[serde(deny_unknown_fields)]` type, or a map, sees only the model's arguments).
#[derive(Debug, Clone)]
pub(crate) struct ArgumentDecoder {
    tool_name: String,
    undeclared: Vec<&'static str>,
}

impl ArgumentDecoder {
    /// The decoder of the tool `tool_name`, whose parameters `schema` declares.
    pub(crate) fn new(tool_name: &str, schema: &JsonObject) -> ArgumentDecoder {
        let declared = property_names(schema);
        let undeclared = CONTEXT_KEYS
            .iter()
            .copied()
            .filter(|key| !declared.iter().any(|d| d == key))
            .collect();
        ArgumentDecoder {
            tool_name: tool_name.to_owned(),
            undeclared,
        }
    }

    /// The arguments as `A`, or the error the model's caller sees:
    /// `invalid arguments for tool NAME: REASON`.
    ///
    /// Arguments that do not decode straight into `A` go the long way, through a JSON value,
    /// before they are refused: that path accepts exactly what serde_json accepts, and its
    /// errors say what was wrong (`invalid type: string "x", expected f64`) where MessagePack's
    /// only name the marker it did not expect.
    pub(crate) fn decode<A: DeserializeOwned>(&self, args: &EncodedValue) -> Result<A, ToolError> {
        let drop = |key: &str| self.undeclared.contains(&key);
        if let Ok(parsed) = args.decode_without::<A>(drop) {
            return Ok(parsed);
        }
        let reason = match args.decode_without::<JsonObject>(drop) {
            Ok(object) => match serde_json::from_value::<A>(Value::Object(object)) {
                Ok(parsed) => return Ok(parsed),
                Err(err) => err.to_string(),
            },
            // Not even a map: serde's own words, without the wire error's prefix.
            Err(WireError::Decode(err)) => err.to_string(),
            Err(other) => other.to_string(),
        };
        Err(ToolError::new(format!(
            "invalid arguments for tool {}: {reason}",
            self.tool_name
        )))
    }
}

#[cfg(test)]
mod tests;
