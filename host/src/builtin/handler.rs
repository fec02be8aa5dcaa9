//! What a built-in tool's handler is given and returns: the contract between the catalog's
//! rows and the handlers in `handlers/`.

use std::sync::Arc;

use futures::future::BoxFuture;
use maitool_protocol::{
    ToolAvailabilityContext, ToolExecutionContext, ToolExecutionResult, ToolInvocation, ToolSpec,
};

use super::config::BuiltinConfig;
use super::discovery::Discovery;
use super::engine::{EngineBridge, EngineCapabilities, EngineError};
use super::stage::Stage;

/// The specs of the built-ins available in a context and offered in a stage.
pub type OwnSpecs =
    fn(&BuiltinConfig, EngineCapabilities, &ToolAvailabilityContext, Stage) -> Vec<ToolSpec>;

/// Everything a handler may use.
#[derive(Clone)]
pub struct HandlerContext {
    /// The configuration.
    pub config: Arc<BuiltinConfig>,
    /// The engine.
    pub engine: Arc<dyn EngineBridge>,
    /// Deferred-tool discovery.
    pub discovery: Arc<Discovery>,
    /// The built-ins' own specs, as the provider lists them: what `tool_search` searches
    /// before a registry is attached.
    pub own_specs: OwnSpecs,
}

impl std::fmt::Debug for HandlerContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HandlerContext")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// A tool's own failure: the text the model sees, and optional structured detail.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolFailure {
    /// The error message.
    pub message: String,
    /// Structured detail for the result.
    pub structured: Option<serde_json::Value>,
}

impl ToolFailure {
    /// A failure with a message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            structured: None,
        }
    }

    /// The failed result for `tool_name`.
    pub fn into_result(self, tool_name: &str) -> ToolExecutionResult {
        let mut result = ToolExecutionResult::failure(tool_name, self.message);
        result.structured_content = self.structured;
        result
    }
}

impl From<EngineError> for ToolFailure {
    fn from(error: EngineError) -> Self {
        ToolFailure::new(error.to_string())
    }
}

/// What a handler returns.
pub type HandlerResult = Result<ToolExecutionResult, ToolFailure>;

/// A tool's handler.
pub type Handler = for<'a> fn(
    &'a HandlerContext,
    &'a ToolInvocation,
    &'a ToolExecutionContext,
) -> BoxFuture<'a, HandlerResult>;
