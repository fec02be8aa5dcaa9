//! [`StoreSnapshot`]: every row of the built-in store, as one backend dumps it and another
//! loads it (`maitool store copy`). Keys are kept: messages, memories, emojis and images are
//! referred to by their ids (MaiBot's tables show them), so a copy must not renumber them.

/// Every row of every table of the store. Full-text indexes are not rows: each backend builds
/// its own from the memories and emojis it loads.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StoreSnapshot {
    /// `streams`.
    pub streams: Vec<StreamRow>,
    /// `messages`.
    pub messages: Vec<MessageRow>,
    /// `message_images`.
    pub message_images: Vec<MessageImageRow>,
    /// `forward_messages`: message id and the bundle's JSON.
    pub forward_messages: Vec<(String, String)>,
    /// `session_reads`: session, stream, last message read.
    pub session_reads: Vec<(String, String, i64)>,
    /// `memories`.
    pub memories: Vec<MemoryRow>,
    /// `persons`.
    pub persons: Vec<PersonRow>,
    /// `person_names`: person and one name they go by.
    pub person_names: Vec<(String, String)>,
    /// `person_traits`: person, position, trait.
    pub person_traits: Vec<(String, i64, String)>,
    /// `emojis`.
    pub emojis: Vec<EmojiRow>,
    /// `emoji_emotions`: emoji id and one emotion tag.
    pub emoji_emotions: Vec<(i64, String)>,
    /// `tool_media`.
    pub tool_media: Vec<ToolMediaRow>,
    /// `tool_calls`.
    pub tool_calls: Vec<ToolCallRow>,
}

/// A row of `streams`; `id` is the number MaiBot's `ChatSession.id` shows.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub struct StreamRow {
    pub id: i64,
    pub stream_id: String,
    pub platform: String,
    pub chat_type: Option<String>,
    pub target_id: String,
    pub name: String,
    pub created_at: f64,
}

/// A row of `messages`; `seq` orders a stream's history.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub struct MessageRow {
    pub seq: i64,
    pub message_id: String,
    pub stream_id: String,
    pub sender_id: String,
    pub sender_name: String,
    pub is_bot: bool,
    pub text: String,
    pub reply_to: Option<String>,
    /// JSON array of strings.
    pub mentions: String,
    pub created_at: f64,
}

/// A row of `message_images`; `id` is the number MaiBot's `Images.id` is made from.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub struct MessageImageRow {
    pub id: i64,
    pub message_id: String,
    pub idx: i64,
    pub mime_type: String,
    pub data: Vec<u8>,
    pub description: String,
    pub hash: String,
}

/// A row of `memories`.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub struct MemoryRow {
    pub id: i64,
    pub kind: String,
    pub title: String,
    pub content: String,
    pub person_id: String,
    pub chat_id: String,
    pub created_at: f64,
}

/// A row of `persons`; `id` is MaiBot's `PersonInfo.id`.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub struct PersonRow {
    pub id: i64,
    pub person_id: String,
    pub person_name: String,
    pub nickname: String,
    pub platform: String,
    pub user_id: String,
    /// JSON array of strings.
    pub aliases: String,
    pub profile: String,
    pub updated_at: f64,
}

/// A row of `emojis`: bytes, or a file read when the emoji is picked.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub struct EmojiRow {
    pub id: i64,
    pub source: String,
    pub path: Option<String>,
    pub data: Option<Vec<u8>>,
    pub mime_type: String,
    pub description: String,
    /// JSON array of strings.
    pub emotions: String,
    pub hash: String,
}

/// A row of `tool_media`.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub struct ToolMediaRow {
    pub session_id: String,
    pub media_id: String,
    pub content_type: String,
    pub mime_type: String,
    pub data: Option<Vec<u8>>,
    pub uri: String,
    pub name: String,
    pub created_at: f64,
}

/// A row of `tool_calls`.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub struct ToolCallRow {
    pub id: i64,
    pub session_id: String,
    pub stream_id: String,
    pub call_id: String,
    pub tool_name: String,
    /// JSON object.
    pub arguments: String,
    pub success: bool,
    pub content: String,
    pub error_message: String,
    pub created_at: f64,
}

impl StoreSnapshot {
    /// How many rows it holds, all tables together.
    pub fn row_count(&self) -> usize {
        self.streams.len()
            + self.messages.len()
            + self.message_images.len()
            + self.forward_messages.len()
            + self.session_reads.len()
            + self.memories.len()
            + self.persons.len()
            + self.person_names.len()
            + self.person_traits.len()
            + self.emojis.len()
            + self.emoji_emotions.len()
            + self.tool_media.len()
            + self.tool_calls.len()
    }

    /// The rows of `self` that `other` lacks or holds differently, each as `table key`: what a
    /// copy into `other` did not carry over (a key already taken by another row).
    pub fn missing_from(&self, other: &StoreSnapshot) -> Vec<String> {
        fn check<T: PartialEq>(
            out: &mut Vec<String>,
            table: &str,
            mine: &[T],
            theirs: &[T],
            key: impl Fn(&T) -> String,
        ) {
            // By key, not by scanning: a store holds hundreds of thousands of messages.
            let theirs: std::collections::HashMap<String, &T> =
                theirs.iter().map(|row| (key(row), row)).collect();
            out.extend(mine.iter().filter_map(|row| {
                let name = key(row);
                (theirs.get(&name) != Some(&row)).then(|| format!("{table} {name}"))
            }));
        }
        let mut out = Vec::new();
        check(&mut out, "streams", &self.streams, &other.streams, |r| {
            r.stream_id.clone()
        });
        check(&mut out, "messages", &self.messages, &other.messages, |r| {
            r.message_id.clone()
        });
        check(
            &mut out,
            "message_images",
            &self.message_images,
            &other.message_images,
            |r| format!("{}#{}", r.message_id, r.idx),
        );
        check(
            &mut out,
            "forward_messages",
            &self.forward_messages,
            &other.forward_messages,
            |r| r.0.clone(),
        );
        check(
            &mut out,
            "session_reads",
            &self.session_reads,
            &other.session_reads,
            |r| format!("{}/{}", r.0, r.1),
        );
        check(&mut out, "memories", &self.memories, &other.memories, |r| {
            r.id.to_string()
        });
        check(&mut out, "persons", &self.persons, &other.persons, |r| {
            r.person_id.clone()
        });
        check(
            &mut out,
            "person_names",
            &self.person_names,
            &other.person_names,
            |r| format!("{}/{}", r.0, r.1),
        );
        check(
            &mut out,
            "person_traits",
            &self.person_traits,
            &other.person_traits,
            |r| format!("{}#{}", r.0, r.1),
        );
        check(&mut out, "emojis", &self.emojis, &other.emojis, |r| {
            r.source.clone()
        });
        check(
            &mut out,
            "emoji_emotions",
            &self.emoji_emotions,
            &other.emoji_emotions,
            |r| format!("{}/{}", r.0, r.1),
        );
        check(
            &mut out,
            "tool_media",
            &self.tool_media,
            &other.tool_media,
            |r| format!("{}/{}", r.session_id, r.media_id),
        );
        check(
            &mut out,
            "tool_calls",
            &self.tool_calls,
            &other.tool_calls,
            |r| r.id.to_string(),
        );
        out
    }
}
