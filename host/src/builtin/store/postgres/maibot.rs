//! MaiBot's tables over the PostgreSQL store. Each field is the SQLite backend's expression
//! except the few written with SQLite's own functions or `rowid`, translated here; every value
//! is cast to its kind's type so that rows read the same as on SQLite. Text orders by bytes
//! and NULLs sort first ascending, as in SQLite; times print as SQLite's `strftime` prints
//! them, in UTC.

use async_trait::async_trait;
use serde_json::{Map, Value};
use tokio_postgres::types::ToSql;

use super::PostgresStore;
use super::time::is_data_error;
use crate::builtin::store::backend::MaibotBackend;
use crate::builtin::store::{Field, FieldKind, MaibotTable, StoreError, TableQuery};

use FieldKind::{Bool, Integer, Text, Time};

/// Emojis and message images in one table, ids as the SQLite backend makes them.
const IMAGES_FROM: &str = "(
    SELECT e.id * 2 AS id, e.hash AS image_hash, e.description AS description,
           coalesce(e.path, '') AS full_path, 'emoji' AS image_type, 1 AS is_registered,
           NULL::float8 AS record_time
    FROM emojis e
    UNION ALL
    SELECT i.id * 2 + 1, i.hash, i.description, '', 'image', 0, m.created_at
    FROM message_images i JOIN messages m ON m.message_id = i.message_id
) img";

fn source_sql(table: MaibotTable) -> &'static str {
    match table {
        MaibotTable::PersonInfo => "persons p",
        MaibotTable::Messages => "messages m LEFT JOIN streams s ON s.stream_id = m.stream_id",
        MaibotTable::Images => IMAGES_FROM,
        MaibotTable::ChatSession => "streams s",
    }
}

/// The field's expression in PostgreSQL, typed by its kind.
fn expression(table: MaibotTable, field: &Field) -> String {
    let sql = match (table, field.name) {
        (MaibotTable::PersonInfo, "id") => "p.id",
        (MaibotTable::ChatSession, "id") => "s.id",
        // JSON text exactly as SQLite's json_group_array writes it (no spaces).
        (MaibotTable::PersonInfo, "memory_points") => {
            "coalesce((SELECT '[' || string_agg(to_json('trait:' || t.content || ':1.0')::text, ','
                                                ORDER BY t.position) || ']'
                       FROM person_traits t WHERE t.person_id = p.person_id), '[]')"
        }
        _ => field.sql,
    };
    match field.kind {
        Integer => format!("({sql})::bigint"),
        Text => format!("({sql})::text"),
        Bool => format!("({sql})::boolean"),
        Time => format!("({sql})::float8"),
    }
}

fn select_list(table: MaibotTable) -> String {
    table
        .fields()
        .iter()
        .map(|field| match field.kind {
            Time => format!(
                "to_char(to_timestamp({}) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS')",
                expression(table, field)
            ),
            _ => expression(table, field),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

type Params = Vec<Box<dyn ToSql + Sync + Send>>;

/// The WHERE clause and its parameters; comparisons follow SQLite's (a number compared with
/// text that is not a number never matches).
fn conditions(
    table: MaibotTable,
    filters: &[(String, Value)],
) -> Result<(String, Params), StoreError> {
    let mut clauses = Vec::new();
    let mut params: Params = Vec::new();
    for (name, value) in filters {
        let field = table.field(name)?;
        let sql = expression(table, field);
        let number = |value: &Value| match value {
            Value::Number(number) => number.as_f64(),
            Value::String(text) => text.trim().parse::<f64>().ok(),
            Value::Bool(flag) => Some(f64::from(u8::from(*flag))),
            _ => None,
        };
        let placeholder = params.len() + 1;
        match (field.kind, value) {
            (_, Value::Null) => clauses.push(format!("{sql} IS NULL")),
            (_, Value::Array(_) | Value::Object(_)) => {
                return Err(StoreError::Invalid(format!(
                    "filter {name:?} must be a string, number, boolean or null (filters compare for equality), not {}",
                    maitool_protocol::json_kind(value)
                )));
            }
            (Time, Value::String(text)) if number(value).is_none() => {
                clauses.push(format!(
                    "{sql} = extract(epoch FROM ${placeholder}::text::timestamptz)::float8"
                ));
                params.push(Box::new(text.clone()));
            }
            (Text, Value::String(text)) => {
                clauses.push(format!("{sql} = ${placeholder}"));
                params.push(Box::new(text.clone()));
            }
            (Text, Value::Number(number)) => {
                clauses.push(format!("{sql} = ${placeholder}"));
                params.push(Box::new(number.to_string()));
            }
            (Text, Value::Bool(flag)) => {
                clauses.push(format!("{sql} = ${placeholder}"));
                params.push(Box::new(if *flag { "1" } else { "0" }.to_owned()));
            }
            (kind, _) => match number(value) {
                Some(number) => {
                    let sql = if kind == Bool {
                        format!("({sql})::int")
                    } else {
                        sql
                    };
                    clauses.push(format!("({sql})::float8 = ${placeholder}"));
                    params.push(Box::new(number));
                }
                None => clauses.push("false".into()),
            },
        }
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
            Some(name) => (name, "DESC NULLS LAST"),
            None => (item.as_str(), "ASC NULLS FIRST"),
        };
        let field = table.field(name)?;
        let collate = if field.kind == Text {
            " COLLATE \"C\""
        } else {
            ""
        };
        terms.push(format!("{}{collate} {direction}", expression(table, field)));
    }
    Ok(if terms.is_empty() {
        String::new()
    } else {
        format!(" ORDER BY {}", terms.join(", "))
    })
}

impl PostgresStore {
    /// Runs a MaiBot query with times read as UTC; a filter the database cannot read as a
    /// time is the request's fault.
    async fn maibot_query(
        &self,
        sql: &str,
        params: &Params,
    ) -> Result<Vec<tokio_postgres::Row>, StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        tx.batch_execute("SET LOCAL TimeZone = 'UTC'").await?;
        let refs: Vec<&(dyn ToSql + Sync)> = params
            .iter()
            .map(|param| param.as_ref() as &(dyn ToSql + Sync))
            .collect();
        match tx.query(sql, &refs).await {
            Ok(rows) => Ok(rows),
            Err(error) if is_data_error(&error) => Err(StoreError::Invalid(format!(
                "a filter is not a time: {}",
                error
                    .as_db_error()
                    .map_or_else(|| error.to_string(), |db| db.message().to_owned())
            ))),
            Err(error) => Err(error.into()),
        }
    }
}

#[async_trait]
impl MaibotBackend for PostgresStore {
    async fn maibot_rows(
        &self,
        table: MaibotTable,
        query: TableQuery,
    ) -> Result<Vec<Map<String, Value>>, StoreError> {
        let (clause, params) = conditions(table, &query.filters)?;
        let order = order_clause(table, &query.order_by)?;
        let limit = query
            .limit
            .map_or_else(String::new, |limit| format!(" LIMIT {limit}"));
        let sql = format!(
            "SELECT {} FROM {}{clause}{order}{limit}",
            select_list(table),
            source_sql(table)
        );
        let rows = self.maibot_query(&sql, &params).await?;
        let fields = table.fields();
        Ok(rows
            .iter()
            .map(|row| {
                let mut object = Map::with_capacity(fields.len());
                for (index, field) in fields.iter().enumerate() {
                    let value = match field.kind {
                        Integer => row.get::<_, Option<i64>>(index).map(Value::from),
                        Bool => row.get::<_, Option<bool>>(index).map(Value::from),
                        Text | Time => row.get::<_, Option<String>>(index).map(Value::from),
                    };
                    object.insert(field.name.to_owned(), value.unwrap_or(Value::Null));
                }
                object
            })
            .collect())
    }

    async fn maibot_count(
        &self,
        table: MaibotTable,
        filters: Vec<(String, Value)>,
    ) -> Result<usize, StoreError> {
        let (clause, params) = conditions(table, &filters)?;
        let sql = format!("SELECT count(*) FROM {}{clause}", source_sql(table));
        let rows = self.maibot_query(&sql, &params).await?;
        Ok(rows.first().map_or(0, |row| row.get::<_, i64>(0)) as usize)
    }
}
