//! A hook's kwargs checked against its parameter schema before any handler sees them, so an
//! engine or operator that passes a wrong payload reads which key is wrong, and no plugin gets
//! a payload MaiBot would never send it.

use std::sync::{Arc, OnceLock};

use foldhash::HashMap;
use maitool_protocol::JsonObject;
use maitool_protocol::hook::HookSpec;
use parking_lot::Mutex;
use serde_json::Value;

use super::HookError;

/// At most this many violations are named.
const MAX_VIOLATIONS: usize = 3;

/// Compiled once per hook: the catalogue's schemas never change.
fn validator(spec: &'static HookSpec) -> Arc<jsonschema::Validator> {
    static CACHE: OnceLock<Mutex<HashMap<&'static str, Arc<jsonschema::Validator>>>> =
        OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut cache = cache.lock();
    Arc::clone(cache.entry(spec.name).or_insert_with(|| {
        // The catalogue's schemas are ours and compile (a unit test compiles every one).
        Arc::new(
            jsonschema::validator_for(&spec.parameters_schema())
                .expect("hook parameter schemas compile"),
        )
    }))
}

/// `Ok` when `kwargs` have every required key of `spec` with the declared types; unknown keys
/// are let through (a handler may pass on keys a later one reads).
pub fn check_kwargs(spec: &'static HookSpec, kwargs: &JsonObject) -> Result<(), HookError> {
    let validator = validator(spec);
    let instance = Value::Object(kwargs.clone());
    if validator.is_valid(&instance) {
        return Ok(());
    }
    let violations: Vec<String> = validator
        .iter_errors(&instance)
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
    Err(HookError::InvalidKwargs {
        hook: spec.name.to_owned(),
        violations: violations.join("; "),
    })
}
