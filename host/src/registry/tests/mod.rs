//! Tests of the registry through small but real providers, each keeping its own state
//! (see [`providers`]).

mod arguments;
mod lifecycle;
mod listing;
mod metrics;
mod providers;
mod routing;

use maitool_protocol::{JsonObject, ProviderType, ToolExecutionContext, ToolInvocation, ToolSpec};
use serde_json::json;

fn spec(name: &str, provider: &str) -> ToolSpec {
    let schema = json!({
        "type": "object",
        "properties": {"n": {"type": "integer"}},
    });
    let serde_json::Value::Object(schema) = schema else {
        unreachable!("literal object")
    };
    ToolSpec::new(name, format!("  {name} of {provider}  "))
        .with_parameters(schema)
        .with_provider(provider, ProviderType::Builtin)
}

fn call(name: &str, n: i64) -> ToolInvocation {
    let mut arguments = JsonObject::new();
    arguments.insert("n".to_owned(), json!(n));
    ToolInvocation::new(name, arguments).with_call_id(format!("call-{n}"))
}

fn private_chat() -> ToolExecutionContext {
    ToolExecutionContext {
        is_group_chat: Some(false),
        user_id: "u1".to_owned(),
        ..ToolExecutionContext::default()
    }
}

fn group_chat() -> ToolExecutionContext {
    ToolExecutionContext {
        is_group_chat: Some(true),
        group_id: "g1".to_owned(),
        ..ToolExecutionContext::default()
    }
}

fn names<S: std::borrow::Borrow<ToolSpec>>(specs: &[S]) -> Vec<&str> {
    specs
        .iter()
        .map(|spec| spec.borrow().name.as_str())
        .collect()
}
