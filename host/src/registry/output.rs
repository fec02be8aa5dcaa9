//! Output validation: a successful result's `structured_content` is checked against the
//! tool's `output_schema`, whatever the tool's source, so that no client receives structured
//! content that breaks the schema the tool published (MCP clients validate it and reject the
//! whole result; a model would trust a wrong shape).
//!
//! A result that breaks its schema becomes a failed result naming the mismatch
//! (`structured content of tool NAME does not match its output schema: at /FIELD: ...`,
//! `error_kind = "invalid_output"`), with its content items kept and its structured content
//! dropped. Validators are compiled once per schema and cached per tool, like the argument
//! validators; a schema that does not compile is logged once and its results pass unchecked.

use std::sync::Arc;

use foldhash::HashMap;
use maitool_protocol::{ToolExecutionResult, ToolSpec};
use parking_lot::RwLock;
use serde_json::Value;

use super::arguments::describe;

/// The compiled output validators of one provider registration.
#[derive(Default)]
pub(super) struct OutputValidators {
    by_tool: RwLock<HashMap<String, Compiled>>,
}

struct Compiled {
    schema: Arc<ToolSpec>,
    validator: Option<Arc<jsonschema::Validator>>,
}

impl OutputValidators {
    /// `result` as is, or a failure naming how its structured content breaks the schema.
    pub(super) fn check(
        &self,
        spec: &Arc<ToolSpec>,
        mut result: ToolExecutionResult,
    ) -> ToolExecutionResult {
        let (Some(schema), Some(structured)) = (&spec.output_schema, &result.structured_content)
        else {
            return result;
        };
        if !result.success || structured.is_null() {
            return result;
        }
        let Some(validator) = self.validator(spec, schema) else {
            return result;
        };
        if validator.is_valid(structured) {
            return result;
        }
        let mismatch = describe(&validator, structured);
        let name = &spec.name;
        tracing::warn!(tool = %name, provider = %spec.provider_name, %mismatch, "a tool's structured content breaks its output schema");
        result.success = false;
        result.error_message = format!(
            "structured content of tool {name} does not match its output schema: {mismatch}"
        );
        result.structured_content = None;
        result
            .metadata
            .insert("error_kind".to_owned(), Value::from("invalid_output"));
        result
    }

    fn validator(
        &self,
        spec: &Arc<ToolSpec>,
        schema: &maitool_protocol::JsonObject,
    ) -> Option<Arc<jsonschema::Validator>> {
        if let Some(compiled) = self.by_tool.read().get(&spec.name)
            && (Arc::ptr_eq(&compiled.schema, spec)
                || compiled.schema.output_schema == spec.output_schema)
        {
            return compiled.validator.clone();
        }
        let validator = match jsonschema::validator_for(&Value::Object(schema.clone())) {
            Ok(validator) => Some(Arc::new(validator)),
            Err(err) => {
                tracing::warn!(tool = %spec.name, provider = %spec.provider_name, error = %err, "the tool's output schema does not compile; its results are not checked");
                None
            }
        };
        self.by_tool.write().insert(
            spec.name.clone(),
            Compiled {
                schema: Arc::clone(spec),
                validator: validator.clone(),
            },
        );
        validator
    }
}
