//! A registry listing split for a stage into what the model sees directly and what waits for
//! discovery (MaiBot's visible/deferred split, generalised):
//!
//! * Built-ins (provider `maisaka_builtin`) of the stage: `visible` ones are exposed,
//!   `deferred` ones join the deferred pool, `hidden` ones are left out.
//! * Every other tool (plugin, MCP, ...) is exposed only with `metadata.visibility ==
//!   "visible"`; `hidden` is left out; anything else is deferred. Non-built-ins belong to the
//!   action stage.

use std::sync::Arc;

use maitool_protocol::{ToolSpec, Visibility};

use super::PROVIDER_NAME;
use super::stage::Stage;

/// Tools split by how they reach the model.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Classified {
    /// Shown directly.
    pub visible: Vec<Arc<ToolSpec>>,
    /// Shown after discovery.
    pub deferred: Vec<Arc<ToolSpec>>,
}

/// Splits a registry listing for a stage; see the module documentation of `builtin::classify`.
pub fn classify(specs: Vec<Arc<ToolSpec>>, stage: Stage) -> Classified {
    let mut classified = Classified::default();
    for spec in specs {
        let (tool_stage, visibility) = if spec.provider_name == PROVIDER_NAME {
            let tool_stage = spec
                .metadata
                .get("builtin_stage")
                .and_then(|value| value.as_str())
                .and_then(|value| value.parse::<Stage>().ok())
                .unwrap_or(Stage::Action);
            (tool_stage, Visibility::of_spec(&spec))
        } else {
            (Stage::Action, Visibility::of_spec(&spec))
        };
        if !tool_stage.offered_in(stage) {
            continue;
        }
        match visibility {
            Visibility::Visible => classified.visible.push(spec),
            Visibility::Deferred => classified.deferred.push(spec),
            Visibility::Hidden => {}
        }
    }
    classified
}
