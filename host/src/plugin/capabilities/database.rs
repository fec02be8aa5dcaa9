//! `database.*`: read-only views of the store under MaiBot's model and field names
//! (`PersonInfo`, `Messages`, `Images`, `ChatSession`; see `builtin/store/maibot_tables.rs`).
//!
//! Results are MaiBot's: `database.get` (and `database.query` of type `get`) answers the rows
//! themselves (a list, or one row or `null` with `single_result`), `database.count` a number,
//! which the SDK hands to the plugin as they are. Every failure is MaiBot's
//! `{success: false, error}`: an unknown model (naming the models served), an unknown field
//! (naming the model's fields; MaiBot logs it and answers no rows), and every write
//! (`create`, `update`, `delete`, `save`), refused because the tables are views of a store
//! that the engine and the built-in tools own.

use maitool_protocol::capability::Capability;
use maitool_protocol::rpc::RpcError;
use serde_json::{Value, json};

use super::CapabilityService;
use super::args::{Args, kind};
use super::refused::unsuccessful_value;
use crate::builtin::StoreError;
use crate::builtin::store::{MaibotTable, TableQuery};

/// Why writes are refused, with what the plugin can use instead.
const READ_ONLY: &str = "the tables maitool serves (PersonInfo, Messages, Images, ChatSession) are read-only views of its chat store, which the engine and the built-in tools write; keep the plugin's own data with kv.*";

impl CapabilityService {
    pub(super) async fn database(&self, args: Args<'_>) -> Result<Value, RpcError> {
        let query_type = match args.capability {
            Capability::DatabaseGet => "get".to_owned(),
            Capability::DatabaseCount => "count".to_owned(),
            Capability::DatabaseQuery => args
                .opt_str("query_type")?
                .filter(|kind| !kind.trim().is_empty())
                .unwrap_or_else(|| "get".into()),
            Capability::DatabaseSave => "save".to_owned(),
            Capability::DatabaseDelete => "delete".to_owned(),
            _ => unreachable!("dispatch only routes database.* capabilities here"),
        };
        let Some(model_name) = args.opt_str("model_name")?.filter(|name| !name.is_empty()) else {
            return Ok(unsuccessful(&args, "argument `model_name` is required"));
        };
        let Some(table) = MaibotTable::from_model_name(&model_name) else {
            let served: Vec<&str> = MaibotTable::ALL.iter().map(|t| t.model_name()).collect();
            return Ok(unsuccessful(
                &args,
                format!(
                    "unknown model {model_name:?}: maitool serves {} (read-only)",
                    served.join(", ")
                ),
            ));
        };
        match query_type.as_str() {
            "get" => self.database_get(&args, table).await,
            "count" => self.database_count(&args, table).await,
            "create" | "update" | "delete" | "save" => Ok(unsuccessful(
                &args,
                format!(
                    "{query_type} of {} refused: {READ_ONLY}",
                    table.model_name()
                ),
            )),
            other => Ok(unsuccessful(
                &args,
                format!("unknown query_type {other:?}: get, count, create, update or delete"),
            )),
        }
    }

    async fn database_get(&self, args: &Args<'_>, table: MaibotTable) -> Result<Value, RpcError> {
        let store = self.store(args)?;
        let query = match table_query(args) {
            Ok(query) => query,
            Err(problem) => return Ok(unsuccessful(args, problem)),
        };
        let single = args.flag("single_result", false)?;
        match store.maibot_rows(table, query).await {
            Ok(rows) if single => Ok(rows.into_iter().next().map_or(Value::Null, Value::Object)),
            Ok(rows) => Ok(Value::Array(rows.into_iter().map(Value::Object).collect())),
            Err(StoreError::Invalid(problem)) => Ok(unsuccessful(args, problem)),
            Err(other) => Err(args.failed(other)),
        }
    }

    async fn database_count(&self, args: &Args<'_>, table: MaibotTable) -> Result<Value, RpcError> {
        let store = self.store(args)?;
        let filters = match filters(args) {
            Ok(filters) => filters,
            Err(problem) => return Ok(unsuccessful(args, problem)),
        };
        match store.maibot_count(table, filters).await {
            Ok(count) => Ok(json!(count)),
            Err(StoreError::Invalid(problem)) => Ok(unsuccessful(args, problem)),
            Err(other) => Err(args.failed(other)),
        }
    }
}

/// `{success: false, error}` naming the capability.
fn unsuccessful(args: &Args<'_>, problem: impl std::fmt::Display) -> Value {
    unsuccessful_value(format!("{}: {problem}", args.capability))
}

fn filters(args: &Args<'_>) -> Result<Vec<(String, Value)>, String> {
    match args.value("filters") {
        None => Ok(Vec::new()),
        Some(Value::Object(filters)) => Ok(filters
            .iter()
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect()),
        Some(other) => Err(format!(
            "argument `filters` must be an object of field names and values, not {}",
            kind(other)
        )),
    }
}

/// MaiBot's `filters`, `order_by` (a field or a list, `-field` descending) and `limit` (0 or
/// absent: all).
fn table_query(args: &Args<'_>) -> Result<TableQuery, String> {
    let order_by = match args.value("order_by") {
        None => Vec::new(),
        Some(Value::String(field)) if field.is_empty() => Vec::new(),
        Some(Value::String(field)) => vec![field.clone()],
        Some(Value::Array(fields)) => fields
            .iter()
            .map(|field| {
                field.as_str().map(str::to_owned).ok_or_else(|| {
                    format!(
                        "argument `order_by` must list field names, not {}",
                        kind(field)
                    )
                })
            })
            .collect::<Result<_, _>>()?,
        Some(other) => {
            return Err(format!(
                "argument `order_by` must be a field name or a list of them, not {}",
                kind(other)
            ));
        }
    };
    let limit = match args.value("limit") {
        None => None,
        Some(value) => match value.as_u64() {
            Some(0) => None,
            Some(limit) => Some(limit as usize),
            None => {
                return Err(format!(
                    "argument `limit` must be a non-negative integer, not {value}"
                ));
            }
        },
    };
    Ok(TableQuery {
        filters: filters(args)?,
        order_by,
        limit,
    })
}
