use serde::{Deserialize, Serialize, Serializer};

use super::compact::serialize_compact;
use super::{JsonObject, ToolContentItem};

/// The unified outcome of a tool call.
///
/// In MessagePack, empty fields other than `tool_name` and `success` are left out (a missing
/// key is its default); JSON keeps them all.
#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
#[serde(default)]
pub struct ToolExecutionResult {
    /// The tool that ran.
    pub tool_name: String,
    /// Whether it succeeded.
    pub success: bool,
    /// Plain-text result.
    pub content: String,
    /// What went wrong, on failure.
    pub error_message: String,
    /// Structured result (any JSON value), for models that analyse data further.
    pub structured_content: Option<serde_json::Value>,
    /// Media and resources: images, audio, resource links.
    pub content_items: Vec<ToolContentItem>,
    /// Messages to append to history after the tool results of the turn.
    pub post_history_messages: Vec<serde_json::Value>,
    /// Extension data, e.g. `pause_execution`, `plugin_id`, `server_name`.
    pub metadata: JsonObject,
    /// The tool asks the engine to end the planner round once this turn's calls have run
    /// (MaiBot 1.3's `stop_after_execution`): unlike `pause_execution`, the calls after it
    /// still run; the round then ends and the session waits for new messages. Honoured on
    /// successful results only.
    pub stop_after_execution: bool,
}

impl Serialize for ToolExecutionResult {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        NamedResult {
            tool_name: "",
            result: self,
        }
        .serialize(serializer)
    }
}

/// A result that serializes as a [`ToolExecutionResult`] whose `tool_name` is `tool_name`
/// when the result's own is empty.
///
/// A runner answers every call with its tool's result; naming it this way spares copying the
/// tool's name into each result.
#[derive(Debug, Clone, Copy)]
pub struct NamedResult<'a> {
    /// The name written when `result.tool_name` is empty.
    pub tool_name: &'a str,
    /// The result.
    pub result: &'a ToolExecutionResult,
}

impl Serialize for NamedResult<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Destructured without `..`, so that a new field cannot be forgotten here.
        let ToolExecutionResult {
            tool_name,
            success,
            content,
            error_message,
            structured_content,
            content_items,
            post_history_messages,
            metadata,
            stop_after_execution,
        } = self.result;
        let fields = ResultFields {
            tool_name: if tool_name.is_empty() {
                self.tool_name
            } else {
                tool_name
            },
            success: *success,
            content,
            error_message,
            structured_content,
            content_items,
            post_history_messages,
            metadata,
            stop_after_execution: *stop_after_execution,
        };
        serialize_compact!(serializer, "ToolExecutionResult", &fields, {
            tool_name: true,
            success: true,
            content: !fields.content.is_empty(),
            error_message: !fields.error_message.is_empty(),
            structured_content: fields.structured_content.is_some(),
            content_items: !fields.content_items.is_empty(),
            post_history_messages: !fields.post_history_messages.is_empty(),
            metadata: !fields.metadata.is_empty(),
            stop_after_execution: fields.stop_after_execution,
        })
    }
}

/// The fields of a result as [`NamedResult`] writes them.
struct ResultFields<'a> {
    tool_name: &'a str,
    success: bool,
    content: &'a str,
    error_message: &'a str,
    structured_content: &'a Option<serde_json::Value>,
    content_items: &'a [ToolContentItem],
    post_history_messages: &'a [serde_json::Value],
    metadata: &'a JsonObject,
    stop_after_execution: bool,
}

impl ToolExecutionResult {
    /// A successful result with text content.
    pub fn success(tool_name: impl Into<String>, content: impl Into<String>) -> Self {
        Self {
            tool_name: tool_name.into(),
            success: true,
            content: content.into(),
            ..Self::default()
        }
    }

    /// A failed result with an error message.
    pub fn failure(tool_name: impl Into<String>, error_message: impl Into<String>) -> Self {
        Self {
            tool_name: tool_name.into(),
            success: false,
            error_message: error_message.into(),
            ..Self::default()
        }
    }

    /// Sets the structured content.
    pub fn with_structured(mut self, value: serde_json::Value) -> Self {
        self.structured_content = Some(value);
        self
    }

    /// Appends a content item.
    pub fn with_item(mut self, item: ToolContentItem) -> Self {
        self.content_items.push(item);
        self
    }

    /// Sets one metadata entry.
    pub fn with_metadata(mut self, key: &str, value: impl Into<serde_json::Value>) -> Self {
        self.metadata.insert(key.to_owned(), value.into());
        self
    }

    /// The text that stands for this result in conversation history. The first non-empty of:
    /// the trimmed content; the content items' one-line renderings joined by newlines; the
    /// structured content (a string as is, anything else as compact JSON); the error message.
    pub fn history_content(&self) -> String {
        let content = self.content.trim();
        if !content.is_empty() {
            return content.to_owned();
        }
        let items: Vec<String> = self
            .content_items
            .iter()
            .map(ToolContentItem::history_text)
            .filter(|text| !text.trim().is_empty())
            .collect();
        if !items.is_empty() {
            return items.join("\n");
        }
        match &self.structured_content {
            Some(serde_json::Value::String(text)) if !text.trim().is_empty() => {
                return text.trim().to_owned();
            }
            Some(serde_json::Value::Null) | None => {}
            Some(serde_json::Value::String(_)) => {}
            Some(value) => return value.to_string(),
        }
        self.error_message.trim().to_owned()
    }

    /// Asks the engine to end the planner round after this turn's calls
    /// ([`stop_after_execution`](Self::stop_after_execution)).
    pub fn with_stop_after_execution(mut self) -> Self {
        self.stop_after_execution = true;
        self
    }

    /// True when a successful result asks to end the planner round after the turn's calls:
    /// a failed result never does, as in MaiBot.
    pub fn stops_after_execution(&self) -> bool {
        self.success && self.stop_after_execution
    }

    /// True when `metadata.pause_execution` asks the engine to stop the rest of the batch.
    pub fn pauses_execution(&self) -> bool {
        self.metadata
            .get("pause_execution")
            .and_then(|v| v.as_bool())
            .unwrap_or(false)
    }
}
