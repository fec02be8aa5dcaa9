//! The store seen as MaiBot's database: read-only views of persons, messages, images (emoji
//! included) and chat streams under MaiBot 1.3's model names (`PersonInfo`, `Messages`,
//! `Images`, `ChatSession`) and field names, for the `database.*` capabilities MaiBot plugins
//! call. Each field is an SQL expression over the store's own tables; a field MaiBot has and
//! the store does not keep reads as MaiBot's default (`null`, `false`, `0`). Filters are
//! equality, as MaiBot's are; orders and limits are pushed into the database.

use serde_json::Value;

use super::StoreError;

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
    /// The SQL expression that computes it over the store's tables (in SQLite's dialect; the
    /// PostgreSQL backend translates the few that use SQLite's own functions); `NULL` (or a
    /// constant) for what the store does not keep.
    pub(super) sql: &'static str,
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
