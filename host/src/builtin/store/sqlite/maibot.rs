//! MaiBot's tables over the SQLite store: each field's expression as written, filters,
//! orders and limits pushed into SQLite.

use async_trait::async_trait;
use rusqlite::types::Value as SqlValue;
use serde_json::{Map, Value};

use super::SqliteStore;
use crate::builtin::store::backend::MaibotBackend;
use crate::builtin::store::{FieldKind, MaibotTable, StoreError, TableQuery};

use FieldKind::{Bool, Text, Time};

/// Emojis and the images of messages in one table, as MaiBot keeps them: an emoji's `id` is
/// twice its library id, a message image's twice its row plus one, so both stay unique.
const IMAGES_FROM: &str = "(
    SELECT e.id * 2 AS id, e.hash AS image_hash, e.description AS description,
           coalesce(e.path, '') AS full_path, 'emoji' AS image_type, 1 AS is_registered,
           NULL AS record_time
    FROM emojis e
    UNION ALL
    SELECT i.rowid * 2 + 1, i.hash, i.description, '', 'image', 0, m.created_at
    FROM message_images i JOIN messages m ON m.message_id = i.message_id
) img";

/// The rows a table's fields are computed over.
fn source_sql(table: MaibotTable) -> &'static str {
    match table {
        MaibotTable::PersonInfo => "persons p",
        MaibotTable::Messages => "messages m LEFT JOIN streams s ON s.stream_id = m.stream_id",
        MaibotTable::Images => IMAGES_FROM,
        MaibotTable::ChatSession => "streams s",
    }
}

/// The WHERE clause and its parameters.
fn conditions(
    table: MaibotTable,
    filters: &[(String, Value)],
) -> Result<(String, Vec<SqlValue>), StoreError> {
    let mut clauses = Vec::new();
    let mut params = Vec::new();
    for (name, value) in filters {
        let field = table.field(name)?;
        let sql = field.sql;
        let compared = match (field.kind, value) {
            (_, Value::Null) => {
                clauses.push(format!("({sql}) IS NULL"));
                continue;
            }
            (Bool, Value::Bool(flag)) => SqlValue::Integer(i64::from(*flag)),
            (Time, Value::String(text)) if text.trim().parse::<f64>().is_err() => {
                clauses.push(format!("({sql}) = unixepoch(?, 'subsec')"));
                params.push(SqlValue::Text(text.clone()));
                continue;
            }
            (Text, Value::Number(number)) => SqlValue::Text(number.to_string()),
            (_, Value::String(text)) if field.kind != Text => match text.trim().parse::<f64>() {
                Ok(number) => SqlValue::Real(number),
                Err(_) => SqlValue::Text(text.clone()),
            },
            (_, Value::String(text)) => SqlValue::Text(text.clone()),
            (_, Value::Number(number)) => match number.as_i64() {
                Some(whole) => SqlValue::Integer(whole),
                None => SqlValue::Real(number.as_f64().unwrap_or(f64::NAN)),
            },
            (_, Value::Bool(flag)) => SqlValue::Integer(i64::from(*flag)),
            (_, other) => {
                return Err(StoreError::Invalid(format!(
                    "filter {name:?} must be a string, number, boolean or null (filters compare for equality), not {}",
                    maitool_protocol::json_kind(other)
                )));
            }
        };
        clauses.push(format!("({sql}) = ?"));
        params.push(compared);
    }
    let clause = if clauses.is_empty() {
        String::new()
    } else {
        format!(" WHERE {}", clauses.join(" AND "))
    };
    Ok((clause, params))
}

fn order_clause(table: MaibotTable, order_by: &[String]) -> Result<String, StoreError> {
    let mut terms = Vec::new();
    for item in order_by {
        let (name, direction) = match item.strip_prefix('-') {
            Some(name) => (name, "DESC"),
            None => (item.as_str(), "ASC"),
        };
        terms.push(format!("({}) {direction}", table.field(name)?.sql));
    }
    Ok(if terms.is_empty() {
        String::new()
    } else {
        format!(" ORDER BY {}", terms.join(", "))
    })
}

fn select_list(table: MaibotTable) -> String {
    table
        .fields()
        .iter()
        .map(|field| match field.kind {
            Time => format!(
                "strftime('%Y-%m-%dT%H:%M:%f', ({}), 'unixepoch')",
                field.sql
            ),
            _ => format!("({})", field.sql),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn json_of(kind: FieldKind, value: SqlValue) -> Value {
    match (kind, value) {
        (_, SqlValue::Null) => Value::Null,
        (Bool, SqlValue::Integer(n)) => Value::Bool(n != 0),
        (_, SqlValue::Integer(n)) => n.into(),
        (_, SqlValue::Real(x)) => {
            serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
        }
        (_, SqlValue::Text(text)) => text.into(),
        // No field is a blob (MaiBot's `raw_content` reads as null).
        (_, SqlValue::Blob(_)) => Value::Null,
    }
}

#[async_trait]
impl MaibotBackend for SqliteStore {
    /// Rows of a MaiBot table as MaiBot's rows (field name to value).
    async fn maibot_rows(
        &self,
        table: MaibotTable,
        query: TableQuery,
    ) -> Result<Vec<Map<String, Value>>, StoreError> {
        self.call(move |conn| {
            let (clause, params) = conditions(table, &query.filters)?;
            let order = order_clause(table, &query.order_by)?;
            let limit = query.limit.map_or(-1, |limit| limit as i64);
            let sql = format!(
                "SELECT {} FROM {}{clause}{order} LIMIT {limit}",
                select_list(table),
                source_sql(table)
            );
            let mut statement = conn.prepare(&sql)?;
            let fields = table.fields();
            let rows = statement.query_map(rusqlite::params_from_iter(params), |row| {
                let mut object = Map::with_capacity(fields.len());
                for (index, field) in fields.iter().enumerate() {
                    object.insert(field.name.to_owned(), json_of(field.kind, row.get(index)?));
                }
                Ok(object)
            })?;
            Ok(rows.collect::<Result<Vec<_>, _>>()?)
        })
        .await
    }

    /// How many rows of a MaiBot table match the filters.
    async fn maibot_count(
        &self,
        table: MaibotTable,
        filters: Vec<(String, Value)>,
    ) -> Result<usize, StoreError> {
        self.call(move |conn| {
            let (clause, params) = conditions(table, &filters)?;
            let sql = format!("SELECT count(*) FROM {}{clause}", source_sql(table));
            let count: i64 =
                conn.query_row(&sql, rusqlite::params_from_iter(params), |row| row.get(0))?;
            Ok(count as usize)
        })
        .await
    }
}
