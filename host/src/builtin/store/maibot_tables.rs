//! The store seen as MaiBot's database: read-only views of persons, messages, images (emoji
//! included) and chat streams under MaiBot 1.3's model names (`PersonInfo`, `Messages`,
//! `Images`, `ChatSession`) and field names, for the `database.*` capabilities MaiBot plugins
//! call. Each field is an SQL expression over the store's own tables; a field MaiBot has and
//! the store does not keep reads as MaiBot's default (`null`, `false`, `0`). Filters are
//! equality, as MaiBot's are; orders and limits are pushed into SQLite.

use rusqlite::types::Value as SqlValue;
use serde_json::{Map, Value};

use super::{Store, StoreError};

/// How a field's SQL value becomes JSON, and how a filter value is compared with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    /// A whole number.
    Integer,
    /// Text.
    Text,
    /// `true`/`false`, stored as 0 and 1.
    Bool,
    /// A time: Unix seconds in the store, ISO 8601 text (UTC) in a row, as MaiBot's rows carry
    /// Python's `datetime.isoformat()`. A filter gives Unix seconds or ISO text.
    Time,
}

/// One field of a MaiBot table.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// MaiBot's field name.
    pub name: &'static str,
    /// The SQL expression that computes it; `NULL` (or a constant) for what the store does
    /// not keep.
    sql: &'static str,
    /// How it reads and compares.
    pub kind: FieldKind,
}

impl Field {
    /// Whether the store keeps this field (otherwise it reads as MaiBot's default).
    pub fn is_stored(&self) -> bool {
        !matches!(self.sql, "NULL" | "0" | "1")
    }
}

const fn field(name: &'static str, sql: &'static str, kind: FieldKind) -> Field {
    Field { name, sql, kind }
}

use FieldKind::{Bool, Integer, Text, Time};

const PERSON_INFO: &[Field] = &[
    field("id", "p.rowid", Integer),
    // A profile in the store is someone the bot knows.
    field("is_known", "1", Bool),
    field("person_id", "p.person_id", Text),
    field("person_name", "nullif(p.person_name, '')", Text),
    field("name_reason", "NULL", Text),
    field("platform", "p.platform", Text),
    field("user_id", "p.user_id", Text),
    field("user_nickname", "p.nickname", Text),
    field("group_cardname", "NULL", Text),
    // MaiBot's JSON list of `category:content:weight` points; the store's traits, in order.
    field(
        "memory_points",
        "(SELECT json_group_array('trait:' || t.content || ':1.0') FROM
           (SELECT content FROM person_traits WHERE person_id = p.person_id ORDER BY position) t)",
        Text,
    ),
    field("know_counts", "0", Integer),
    field("first_known_time", "NULL", Time),
    field("last_known_time", "NULL", Time),
];

const MESSAGES: &[Field] = &[
    field("id", "m.seq", Integer),
    field("message_id", "m.message_id", Text),
    field("timestamp", "m.created_at", Time),
    field("received_at", "NULL", Time),
    field("platform", "coalesce(s.platform, '')", Text),
    field("account_id", "NULL", Text),
    field("scope", "NULL", Text),
    field("user_id", "m.sender_id", Text),
    field("user_nickname", "m.sender_name", Text),
    field("user_cardname", "NULL", Text),
    field(
        "group_id",
        "CASE WHEN s.chat_type = 'group' THEN s.target_id END",
        Text,
    ),
    field(
        "group_name",
        "CASE WHEN s.chat_type = 'group' THEN s.name END",
        Text,
    ),
    field("is_mentioned", "0", Bool),
    field("is_at", "m.mentions != '[]'", Bool),
    field("session_id", "m.stream_id", Text),
    field("reply_to", "m.reply_to", Text),
    field("is_emoji", "0", Bool),
    field(
        "is_picture",
        "m.text = '' AND EXISTS (SELECT 1 FROM message_images i WHERE i.message_id = m.message_id)",
        Bool,
    ),
    field("is_command", "0", Bool),
    field("is_notify", "0", Bool),
    // MaiBot's msgpack bytes of the segments; `message.get_by_id` gives the segments.
    field("raw_content", "NULL", Text),
    field("processed_plain_text", "m.text", Text),
    field("additional_config", "NULL", Text),
    field("reply_frequency", "NULL", Integer),
];

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

const IMAGES: &[Field] = &[
    field("id", "img.id", Integer),
    field("image_hash", "img.image_hash", Text),
    field("description", "img.description", Text),
    field("full_path", "img.full_path", Text),
    field("image_type", "img.image_type", Text),
    field("query_count", "0", Integer),
    field("is_registered", "img.is_registered", Bool),
    field("is_banned", "0", Bool),
    field("no_file_flag", "0", Bool),
    field("record_time", "img.record_time", Time),
    field("register_time", "NULL", Time),
    field("last_used_time", "NULL", Time),
    field("vlm_processed", "img.description != ''", Bool),
];

const CHAT_SESSION: &[Field] = &[
    field("id", "s.rowid", Integer),
    field("session_id", "s.stream_id", Text),
    field("created_timestamp", "s.created_at", Time),
    field(
        "last_active_timestamp",
        "coalesce((SELECT max(created_at) FROM messages WHERE stream_id = s.stream_id), s.created_at)",
        Time,
    ),
    field(
        "user_id",
        "CASE WHEN s.chat_type = 'private' THEN s.target_id END",
        Text,
    ),
    field(
        "user_nickname",
        "CASE WHEN s.chat_type = 'private' THEN s.name END",
        Text,
    ),
    field("user_cardname", "NULL", Text),
    field(
        "group_id",
        "CASE WHEN s.chat_type = 'group' THEN s.target_id END",
        Text,
    ),
    field(
        "group_name",
        "CASE WHEN s.chat_type = 'group' THEN s.name END",
        Text,
    ),
    field("platform", "s.platform", Text),
    field("account_id", "NULL", Text),
    field("scope", "NULL", Text),
];

/// A MaiBot table the store can show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaibotTable {
    /// `PersonInfo` (`person_info`): person profiles.
    PersonInfo,
    /// `Messages` (`mai_messages`): chat history.
    Messages,
    /// `Images` (`images`): the emoji library and the images of messages.
    Images,
    /// `ChatSession` (`chat_sessions`): chat streams.
    ChatSession,
}

impl MaibotTable {
    /// Every table served, in the docs' order.
    pub const ALL: [MaibotTable; 4] = [
        MaibotTable::PersonInfo,
        MaibotTable::Messages,
        MaibotTable::Images,
        MaibotTable::ChatSession,
    ];

    /// MaiBot's model (class) name, what plugins pass as `model_name`.
    pub fn model_name(self) -> &'static str {
        match self {
            MaibotTable::PersonInfo => "PersonInfo",
            MaibotTable::Messages => "Messages",
            MaibotTable::Images => "Images",
            MaibotTable::ChatSession => "ChatSession",
        }
    }

    /// The table by model name (exact, as MaiBot looks its models up).
    pub fn from_model_name(name: &str) -> Option<MaibotTable> {
        MaibotTable::ALL
            .into_iter()
            .find(|table| table.model_name() == name)
    }

    /// Its fields, in MaiBot's order.
    pub fn fields(self) -> &'static [Field] {
        match self {
            MaibotTable::PersonInfo => PERSON_INFO,
            MaibotTable::Messages => MESSAGES,
            MaibotTable::Images => IMAGES,
            MaibotTable::ChatSession => CHAT_SESSION,
        }
    }

    fn source_sql(self) -> &'static str {
        match self {
            MaibotTable::PersonInfo => "persons p",
            MaibotTable::Messages => "messages m LEFT JOIN streams s ON s.stream_id = m.stream_id",
            MaibotTable::Images => IMAGES_FROM,
            MaibotTable::ChatSession => "streams s",
        }
    }

    /// A field by name, or why there is none (naming the table's fields).
    pub fn field(self, name: &str) -> Result<&'static Field, StoreError> {
        self.fields()
            .iter()
            .find(|field| field.name == name)
            .ok_or_else(|| {
                let names: Vec<&str> = self.fields().iter().map(|field| field.name).collect();
                StoreError::Invalid(format!(
                    "{} has no field {name:?} (its fields: {})",
                    self.model_name(),
                    names.join(", ")
                ))
            })
    }
}

/// Which rows of a table: equality filters, an order, a limit.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TableQuery {
    /// Field name and the value it must equal (`null`: is null).
    pub filters: Vec<(String, Value)>,
    /// Field names, each ascending, or descending with a leading `-` (MaiBot's spelling).
    pub order_by: Vec<String>,
    /// At most this many rows; all when `None`.
    pub limit: Option<usize>,
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

impl Store {
    /// Rows of a MaiBot table as MaiBot's rows (field name to value).
    pub async fn maibot_rows(
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
                table.source_sql()
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
    pub async fn maibot_count(
        &self,
        table: MaibotTable,
        filters: Vec<(String, Value)>,
    ) -> Result<usize, StoreError> {
        self.call(move |conn| {
            let (clause, params) = conditions(table, &filters)?;
            let sql = format!("SELECT count(*) FROM {}{clause}", table.source_sql());
            let count: i64 =
                conn.query_row(&sql, rusqlite::params_from_iter(params), |row| row.get(0))?;
            Ok(count as usize)
        })
        .await
    }
}
