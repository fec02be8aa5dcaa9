//! maitool's own capabilities: the plugin's key-value store (`kv.*`) and the unified tool
//! list (`tool.get_definitions`, which MaiBot serves too).

use std::sync::Weak;

use maitool_protocol::ToolAvailabilityContext;
use maitool_protocol::rpc::RpcError;
use serde_json::{Value, json};

use super::CapabilityService;
use super::args::Args;
use crate::plugin::kv::KvError;
use maitool_protocol::capability::Capability;

impl CapabilityService {
    pub(super) async fn kv(&self, plugin_id: &str, args: Args<'_>) -> Result<Value, RpcError> {
        let failed = |err: KvError| args.failed(crate::error_text::chain(&err));
        match args.capability {
            Capability::KvGet => Ok(self
                .kv
                .get(plugin_id, &args.required_str("key")?)
                .await
                .map_err(failed)?
                .unwrap_or(Value::Null)),
            Capability::KvSet => {
                let key = args.required_str("key")?;
                let value = args.args.get("value").cloned().unwrap_or(Value::Null);
                self.kv.set(plugin_id, &key, &value).await.map_err(failed)?;
                Ok(Value::Bool(true))
            }
            Capability::KvDelete => Ok(Value::Bool(
                self.kv
                    .delete(plugin_id, &args.required_str("key")?)
                    .await
                    .map_err(failed)?,
            )),
            Capability::KvList => Ok(json!(
                self.kv
                    .list(plugin_id, &args.str_or_empty("prefix")?)
                    .await
                    .map_err(failed)?
            )),
            _ => unreachable!("dispatch only routes kv.* capabilities here"),
        }
    }

    pub(super) async fn tool_definitions(&self, args: Args<'_>) -> Result<Value, RpcError> {
        let registry = self
            .registry
            .get()
            .and_then(Weak::upgrade)
            .ok_or_else(|| args.failed("no tool registry"))?;
        let ctx = ToolAvailabilityContext {
            session_id: args.str_or_empty("session_id")?,
            stream_id: args.str_or_empty("stream_id")?,
            ..ToolAvailabilityContext::default()
        };
        // Before the planner's request hook, as in MaiBot: a hook handler that reads the
        // definitions must not run the hook again (it would recurse).
        let tools: Vec<Value> = registry
            .list_tools_unhooked(&ctx)
            .await
            .iter()
            .map(|spec| {
                let def = spec.to_llm_definition();
                json!({ "name": def.name, "definition": def })
            })
            .collect();
        Ok(json!({ "success": true, "tools": tools }))
    }
}
