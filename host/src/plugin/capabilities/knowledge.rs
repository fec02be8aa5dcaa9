//! `knowledge.search`: the store's long-term memories by full-text search (FTS5), the store
//! `query_memory` searches, answered as MaiBot does: one `content` text for the model.

use maitool_protocol::rpc::RpcError;
use serde_json::{Value, json};

use super::CapabilityService;
use super::args::Args;
use crate::builtin::engine::{MemoryMode, MemoryQuery, TimeBound};

/// MaiBot's default number of hits.
const DEFAULT_LIMIT: usize = 5;
/// The most hits one call may ask for (as `query_memory`).
const MAX_LIMIT: usize = 20;

impl CapabilityService {
    pub(super) async fn knowledge(&self, args: Args<'_>) -> Result<Value, RpcError> {
        let store = self.store(&args)?;
        let query = args.required_str("query")?;
        let limit = args.count("limit", DEFAULT_LIMIT)?.clamp(1, MAX_LIMIT);
        let mode = match args.opt_str("mode")?.filter(|m| !m.trim().is_empty()) {
            Some(mode) => mode
                .parse::<MemoryMode>()
                .map_err(|err| args.bad(format!("argument `mode`: {err}")))?,
            None => MemoryMode::Search,
        };
        let time = |key: &str| -> Result<Option<TimeBound>, RpcError> {
            Ok(match args.value(key) {
                None => None,
                Some(Value::Number(n)) => n.as_f64().map(TimeBound::Unix),
                Some(Value::String(text)) => Some(TimeBound::Text(text.clone())),
                Some(other) => {
                    return Err(args.bad(format!(
                        "argument `{key}` must be Unix seconds or a date, not {other}"
                    )));
                }
            })
        };
        let chat_id = args.str_or_empty("chat_id")?;
        let hits = store
            .search_memories(MemoryQuery {
                query: query.clone(),
                mode,
                limit,
                person_id: args.opt_str("person_id")?.filter(|p| !p.is_empty()),
                chat_ids: if chat_id.is_empty() {
                    Vec::new()
                } else {
                    vec![chat_id]
                },
                time_start: time("time_start")?,
                time_end: time("time_end")?,
                respect_filter: args.flag("respect_filter", true)?,
            })
            .await
            .map_err(|err| args.failed(err))?;
        let content = if hits.is_empty() {
            format!("没有找到与「{query}」相关的知识")
        } else {
            let lines: Vec<String> = hits
                .iter()
                .enumerate()
                .map(|(index, hit)| match hit.title.trim() {
                    "" => format!("{}. {}", index + 1, hit.content),
                    title => format!("{}. {title}: {}", index + 1, hit.content),
                })
                .collect();
            format!("你知道这些知识:\n{}", lines.join("\n"))
        };
        Ok(json!({ "success": true, "content": content }))
    }
}
