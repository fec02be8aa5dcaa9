//! Arguments nested deeper than the wire allows are refused before they are encoded.
//!
//! Encoding, cloning and dropping a `serde_json::Value` all recurse, one stack frame or more
//! per level. Text from a model cannot nest deeply (serde_json stops parsing at 128 levels),
//! but a library caller can build 100 000 nested arrays, and encoding them would overflow the
//! host's stack long before the runner's decoder refused them. The check and the disposal here
//! are iterative.

use maitool_protocol::JsonObject;
use maitool_protocol::wire::MAX_NESTING_DEPTH;
use serde_json::Value;

/// Frame levels above a tool's arguments: the envelope and the invoke payload.
const LEVELS_ABOVE_ARGUMENTS: usize = 2;

/// Arguments nested deeper than a frame may carry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "[E_BAD_PAYLOAD] arguments nested deeper than {allowed} levels (a frame may nest at most {MAX_NESTING_DEPTH})"
)]
pub(crate) struct TooDeep {
    /// Levels the arguments may take.
    pub allowed: usize,
}

/// Refuses `arguments` that, with `extra` levels the host itself adds around them (a legacy
/// action's `action_data`), would nest deeper than a frame may. Refused arguments are taken
/// apart without recursion and left empty.
pub(crate) fn check_arguments(arguments: &mut JsonObject, extra: usize) -> Result<(), TooDeep> {
    let allowed = MAX_NESTING_DEPTH - LEVELS_ABOVE_ARGUMENTS - extra;
    // Most calls pass flat arguments: those are answered without the walk's allocation.
    let flat = arguments
        .values()
        .all(|value| !value.is_array() && !value.is_object());
    if flat || !deeper_than(arguments.values(), allowed - 1) {
        return Ok(());
    }
    dismantle(Value::Object(std::mem::take(arguments)));
    Err(TooDeep { allowed })
}

/// Whether any of `values` nests more than `levels` arrays or objects deep.
fn deeper_than<'a>(values: impl Iterator<Item = &'a Value>, levels: usize) -> bool {
    let mut pending: Vec<(&Value, usize)> = values.map(|value| (value, 0)).collect();
    while let Some((value, above)) = pending.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match value {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(map) => Box::new(map.values()),
            _ => continue,
        };
        if above + 1 > levels {
            return true;
        }
        pending.extend(children.map(|child| (child, above + 1)));
    }
    false
}

/// Drops `value` level by level, so that no drop recurses more than one level deep.
fn dismantle(value: Value) {
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Value::Array(items) => pending.extend(items),
            Value::Object(map) => pending.extend(map.into_iter().map(|(_, child)| child)),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests;
