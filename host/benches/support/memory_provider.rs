//! In-memory tool providers of realistic specs: one definition for the registry's criterion
//! bench (`host/benches/registry.rs`) and the benchmark's scale section
//! (`tests/bench/src/scale.rs`, which includes this file), so both measure the same registry.

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use maitool_host::{ProviderError, ToolProvider, ToolRegistry};
use maitool_protocol::{
    JsonObject, ProviderType, ToolAvailabilityContext, ToolExecutionContext, ToolExecutionResult,
    ToolInvocation, ToolSpec,
};
use serde_json::json;

/// A provider whose tools live in memory and answer at once, like a built-in provider.
pub struct MemoryProvider {
    name: String,
    specs: Vec<Arc<ToolSpec>>,
    by_name: HashMap<String, Arc<ToolSpec>>,
}

impl MemoryProvider {
    /// Provider `provider_{p}` with the tools `p{p}_tool_0` .. `p{p}_tool_{tools - 1}`.
    pub fn numbered(p: usize, tools: usize) -> Self {
        let name = format!("provider_{p}");
        let specs: Vec<Arc<ToolSpec>> = (0..tools)
            .map(|t| Arc::new(realistic_spec(&tool_name(p, t), &name)))
            .collect();
        let by_name = specs
            .iter()
            .map(|spec| (spec.name.clone(), Arc::clone(spec)))
            .collect();
        Self {
            name,
            specs,
            by_name,
        }
    }
}

/// The name of tool `t` of provider `p`.
pub fn tool_name(p: usize, t: usize) -> String {
    format!("p{p}_tool_{t}")
}

/// A registry of `providers` numbered providers with `per_provider` tools each, and the
/// providers themselves.
pub fn registry(providers: usize, per_provider: usize) -> (ToolRegistry, Vec<Arc<MemoryProvider>>) {
    let registry = ToolRegistry::new();
    let memory: Vec<_> = (0..providers)
        .map(|p| Arc::new(MemoryProvider::numbered(p, per_provider)))
        .collect();
    for provider in &memory {
        registry.register_provider(provider.clone());
    }
    (registry, memory)
}

/// A spec of realistic size: a sentence of description and a two-property schema.
pub fn realistic_spec(name: &str, provider: &str) -> ToolSpec {
    let schema = json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What to look for"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
        },
        "required": ["query"],
    });
    let serde_json::Value::Object(schema) = schema else {
        unreachable!("an object literal")
    };
    ToolSpec::new(
        name,
        format!("Searches the {provider} knowledge base and returns the best matching entries."),
    )
    .with_parameters(schema)
    .with_provider(provider, ProviderType::Plugin)
}

/// Arguments valid for [`realistic_spec`]'s schema: the registry checks them before routing.
pub fn arguments() -> JsonObject {
    let mut arguments = JsonObject::new();
    arguments.insert("query".to_owned(), json!("weather in Shanghai"));
    arguments.insert("limit".to_owned(), json!(5));
    arguments
}

#[async_trait]
impl ToolProvider for MemoryProvider {
    fn provider_name(&self) -> &str {
        &self.name
    }

    fn provider_type(&self) -> ProviderType {
        ProviderType::Plugin
    }

    async fn list_tools(
        &self,
        _ctx: &ToolAvailabilityContext,
    ) -> Result<Vec<Arc<ToolSpec>>, ProviderError> {
        Ok(self.specs.clone())
    }

    async fn available_tool(
        &self,
        name: &str,
        _ctx: &ToolAvailabilityContext,
    ) -> Result<Option<Arc<ToolSpec>>, ProviderError> {
        Ok(self.by_name.get(name).cloned())
    }

    async fn invoke(
        &self,
        invocation: ToolInvocation,
        _ctx: &ToolExecutionContext,
    ) -> Result<ToolExecutionResult, ProviderError> {
        Ok(ToolExecutionResult::success(invocation.tool_name, "ok"))
    }
}
