//! The arguments of a plugin invocation, written straight into the request frame.

use maitool_protocol::wire::methods::CONTEXT_ARG_KEYS;
use maitool_protocol::{JsonObject, ToolExecutionContext};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

/// How many context keys a MaiBot plugin reads from its arguments.
const CONTEXT_KEYS: usize = CONTEXT_ARG_KEYS.len();

/// Which of the context keys are copied into a call's arguments.
///
/// A MaiBot plugin reads them from its arguments without declaring them, so it gets them all.
/// A runner that says it reads the context from the payload's `context` (maitool's does) gets
/// only those a tool declares as parameters: its SDK drops the others before the tool sees
/// its arguments, so writing them cost the host an encoding and the runner a copy of the
/// arguments without them, for every call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ContextKeys {
    /// One bit per entry of `CONTEXT_ARG_KEYS`.
    copied: u8,
}

impl ContextKeys {
    /// Every context key, MaiBot's convention.
    pub(crate) const ALL: ContextKeys = ContextKeys {
        copied: (1 << CONTEXT_KEYS) - 1,
    };

    /// The context keys `schema` declares among its `properties`.
    pub(crate) fn declared_in(schema: Option<&JsonObject>) -> ContextKeys {
        let properties = schema
            .and_then(|schema| schema.get("properties"))
            .and_then(Value::as_object);
        let copied = CONTEXT_ARG_KEYS
            .iter()
            .enumerate()
            .filter(|(_, key)| properties.is_some_and(|p| p.contains_key(**key)))
            .fold(0, |bits, (index, _)| bits | 1 << index);
        ContextKeys { copied }
    }

    fn includes(self, index: usize) -> bool {
        self.copied & (1 << index) != 0
    }
}

/// The invocation arguments as they go on the wire: the model's arguments plus the context
/// keys a MaiBot plugin expects, each filled only where missing or empty; a legacy Action also
/// gets `reasoning` and the model's arguments as `action_data`.
///
/// It serializes as that map without building it: the model's map is neither copied nor
/// changed, and no key or value is allocated for the context (this runs for every call).
pub(super) struct InvokeArgs<'a> {
    model: &'a JsonObject,
    /// The context keys to write, with their values; `None` past the last.
    fills: [Option<(&'static str, &'a str)>; CONTEXT_KEYS],
    /// For a legacy Action: the reasoning to send.
    action_reasoning: Option<&'a str>,
}

impl<'a> InvokeArgs<'a> {
    /// The arguments of a call with the model's `model` arguments, in context `ctx`, with
    /// the context keys `keys`; `reasoning` is the invocation's own, preferred to the
    /// context's for an Action.
    pub(super) fn new(
        model: &'a JsonObject,
        ctx: &'a ToolExecutionContext,
        reasoning: &'a str,
        legacy_action: bool,
        keys: ContextKeys,
    ) -> InvokeArgs<'a> {
        let anchor = ctx
            .metadata
            .get("anchor_message")
            .and_then(Value::as_object);
        let anchor_text = |key: &str| {
            anchor
                .and_then(|a| a.get(key))
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        };
        let stream = if ctx.stream_id.is_empty() {
            ctx.session_id.as_str()
        } else {
            ctx.stream_id.as_str()
        };
        let candidates = [
            stream,
            stream,
            anchor_text("group_id").unwrap_or(&ctx.group_id),
            anchor_text("user_id").unwrap_or(&ctx.user_id),
            ctx.platform.as_str(),
        ];
        let mut fills = [None; CONTEXT_KEYS];
        let mut count = 0;
        let wanted = CONTEXT_ARG_KEYS.into_iter().zip(candidates).enumerate();
        for (key, value) in wanted
            .filter(|(index, _)| keys.includes(*index))
            .map(|(_, kv)| kv)
        {
            if !value.is_empty() && is_missing(model.get(key)) {
                fills[count] = Some((key, value));
                count += 1;
            }
        }
        let reasoning = if reasoning.is_empty() {
            ctx.reasoning.as_str()
        } else {
            reasoning
        };
        let action_reasoning = legacy_action.then_some(reasoning);
        InvokeArgs {
            model,
            fills,
            action_reasoning,
        }
    }

    fn filled(&self) -> impl Iterator<Item = (&'static str, &'a str)> + '_ {
        self.fills.iter().map_while(|fill| *fill)
    }

    /// Whether the model's entry `key` gives way to a value written here.
    fn replaces(&self, key: &str) -> bool {
        self.filled().any(|(filled, _)| filled == key)
            || (self.action_reasoning.is_some() && (key == "reasoning" || key == "action_data"))
    }
}

/// A context key counts as missing when absent, `nil`, an empty string or `false`.
fn is_missing(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => s.is_empty(),
        Some(Value::Bool(b)) => !b,
        _ => false,
    }
}

impl Serialize for InvokeArgs<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let kept = self.model.keys().filter(|key| !self.replaces(key)).count();
        let extra = self.filled().count()
            + if self.action_reasoning.is_some() {
                2
            } else {
                0
            };
        let mut map = serializer.serialize_map(Some(kept + extra))?;
        for (key, value) in self.model {
            if !self.replaces(key) {
                map.serialize_entry(key, value)?;
            }
        }
        for (key, value) in self.filled() {
            map.serialize_entry(key, value)?;
        }
        if let Some(reasoning) = self.action_reasoning {
            map.serialize_entry("reasoning", reasoning)?;
            map.serialize_entry("action_data", self.model)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests;
