//! A call's arguments as the host prepares them: checked against the tool's schema, then
//! completed with the context keys the tool declares (and, for a legacy Action, `reasoning`
//! and `action_data`).

use maitool_protocol::wire::methods::CONTEXT_ARG_KEYS;
use maitool_protocol::{JsonObject, ToolExecutionContext, ToolExecutionResult};
use serde_json::Value;

/// At most this many schema violations are listed in one refusal (as the host does).
const MAX_VIOLATIONS: usize = 3;

/// `Err` with the failed result the host gives a call whose arguments break the tool's
/// schema: `invalid arguments for tool NAME: at /path: reason`, with
/// `metadata.error_kind = "invalid_arguments"`. A schema that does not compile is not checked.
pub(crate) fn check(
    name: &str,
    schema: Option<&JsonObject>,
    args: &JsonObject,
) -> Result<(), Box<ToolExecutionResult>> {
    let Some(schema) = schema else {
        return Ok(());
    };
    let Ok(validator) = jsonschema::validator_for(&Value::Object(schema.clone())) else {
        return Ok(());
    };
    let instance = Value::Object(args.clone());
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
    if violations.is_empty() {
        return Ok(());
    }
    Err(Box::new(
        ToolExecutionResult::failure(
            name,
            format!(
                "invalid arguments for tool {name}: {}",
                violations.join("; ")
            ),
        )
        .with_metadata("error_kind", "invalid_arguments"),
    ))
}

/// The arguments sent to the runner: the model's, plus each context key the schema declares
/// that the model left missing (absent, `null`, `""` or `false`), filled from `ctx`; for a
/// legacy Action also `reasoning` and the model's arguments as `action_data`.
pub(crate) fn on_the_wire(
    model: &JsonObject,
    schema: Option<&JsonObject>,
    ctx: &ToolExecutionContext,
    legacy_action: bool,
) -> JsonObject {
    let mut args = model.clone();
    let declared = |key: &str| {
        schema
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object)
            .is_some_and(|p| p.contains_key(key))
    };
    let stream = if ctx.stream_id.is_empty() {
        &ctx.session_id
    } else {
        &ctx.stream_id
    };
    for key in CONTEXT_ARG_KEYS {
        let value = match key {
            "stream_id" | "chat_id" => stream,
            "group_id" => &ctx.group_id,
            "user_id" => &ctx.user_id,
            _ => &ctx.platform,
        };
        let missing = match args.get(key) {
            None | Some(Value::Null) => true,
            Some(Value::String(s)) => s.is_empty(),
            Some(Value::Bool(b)) => !b,
            _ => false,
        };
        if declared(key) && missing && !value.is_empty() {
            args.insert(key.to_owned(), Value::String(value.clone()));
        }
    }
    if legacy_action {
        args.insert("reasoning".into(), Value::String(ctx.reasoning.clone()));
        args.insert("action_data".into(), Value::Object(model.clone()));
    }
    args
}
