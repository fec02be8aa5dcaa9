//! Argument validation: every routed call's arguments are checked against the tool's
//! `parameters_schema` before the provider sees them, whatever the tool's source.
//!
//! MaiBot passes arguments through unchecked, so a model's malformed call reaches the plugin
//! and fails there (or worse, half-runs). Here a call that breaks the schema is refused with
//! an error that names the failing field, and nothing is dispatched. Strings that spell the
//! integer, number or boolean the schema asks for are converted first (see [`super::coerce`]).
//!
//! Compiling a schema costs far more than checking a call, so each provider registration keeps
//! the compiled validators of the tools it routed, keyed by name and tied to the spec they
//! were compiled from: a provider that hands out the same `Arc<ToolSpec>` (or an equal schema)
//! reuses the validator; a changed schema is compiled again.

use std::sync::Arc;

use foldhash::HashMap;
use maitool_protocol::{JsonObject, ToolSpec};
use parking_lot::RwLock;
use serde_json::Value;

use super::coerce::coerce;

/// The longest error detail kept: a failing value is quoted in the message and may be huge.
const MAX_DETAIL_CHARS: usize = 400;
/// At most this many schema violations are listed in one error.
const MAX_VIOLATIONS: usize = 3;

/// Arguments that break their tool's parameters schema: the first few violations, each
/// `at /pointer: message`. Shown to the model, clipped, in the call's failed result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", clip(.violations.join("; ")))]
pub(super) struct SchemaViolations {
    violations: Vec<String>,
}

/// The compiled validators of one provider registration.
#[derive(Default)]
pub(super) struct ArgumentValidators {
    by_tool: RwLock<HashMap<String, Compiled>>,
}

struct Compiled {
    spec: Arc<ToolSpec>,
    /// `None` when the schema does not compile: the call is let through (the provider is the
    /// judge then), and the problem was logged once.
    validator: Option<Arc<jsonschema::Validator>>,
}

impl ArgumentValidators {
    /// Checks `arguments` against `spec`'s parameters schema. `Err` carries the violations,
    /// each with the JSON pointer of the failing field.
    pub(super) fn check(
        &self,
        spec: &Arc<ToolSpec>,
        arguments: &mut JsonObject,
    ) -> Result<(), SchemaViolations> {
        let Some(schema) = &spec.parameters_schema else {
            return Ok(());
        };
        let Some(validator) = self.validator(spec, schema) else {
            return Ok(());
        };
        // The validator takes a `Value`: move the map in and back out rather than copy it.
        let mut instance = Value::Object(std::mem::take(arguments));
        let verdict = if validator.is_valid(&instance) {
            Ok(())
        } else {
            // Strings that spell the scalar the schema wants are converted, and only what
            // still breaks the schema is refused (see `coerce`).
            let mut coerced = instance.clone();
            if coerce(schema, &mut coerced) {
                instance = coerced;
            }
            if validator.is_valid(&instance) {
                Ok(())
            } else {
                Err(SchemaViolations {
                    violations: violations(&validator, &instance),
                })
            }
        };
        if let Value::Object(map) = instance {
            *arguments = map;
        }
        verdict
    }

    fn validator(
        &self,
        spec: &Arc<ToolSpec>,
        schema: &JsonObject,
    ) -> Option<Arc<jsonschema::Validator>> {
        if let Some(compiled) = self.by_tool.read().get(&spec.name)
            && same_schema(&compiled.spec, spec)
        {
            return compiled.validator.clone();
        }
        let validator = match jsonschema::validator_for(&Value::Object(schema.clone())) {
            Ok(validator) => Some(Arc::new(validator)),
            Err(err) => {
                tracing::warn!(tool = %spec.name, provider = %spec.provider_name, error = %err, "the tool's parameters schema does not compile; its arguments are not checked");
                None
            }
        };
        self.by_tool.write().insert(
            spec.name.clone(),
            Compiled {
                spec: Arc::clone(spec),
                validator: validator.clone(),
            },
        );
        validator
    }
}

fn same_schema(cached: &Arc<ToolSpec>, current: &Arc<ToolSpec>) -> bool {
    Arc::ptr_eq(cached, current) || cached.parameters_schema == current.parameters_schema
}

/// The first few violations, as `at /path: message`, clipped.
pub(super) fn describe(validator: &jsonschema::Validator, instance: &Value) -> String {
    clip(violations(validator, instance).join("; "))
}

/// The first few violations, as `at /path: message`.
fn violations(validator: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    let mut violations: Vec<String> = validator
        .iter_errors(instance)
        .take(MAX_VIOLATIONS)
        .map(|error| {
            let path = error.instance_path().to_string();
            let at = if path.is_empty() {
                "/".to_owned()
            } else {
                path
            };
            format!("at {at}: {error}")
        })
        .collect();
    if violations.is_empty() {
        violations.push("the arguments do not match the schema".to_owned());
    }
    violations
}

fn clip(mut text: String) -> String {
    if let Some((cut, _)) = text.char_indices().nth(MAX_DETAIL_CHARS) {
        text.truncate(cut);
        text.push('…');
    }
    text
}
