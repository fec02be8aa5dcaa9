//! What a tool handler returns.

use maitool_protocol::{ToolContentItem, ToolExecutionResult};
use serde::Serialize;

/// A successful tool result: text, structured content and content items, in any mix.
///
/// ```
/// use maitool_sdk::ToolOutput;
///
/// // Structured content for programs, and a line of text for the model.
/// let output = ToolOutput::structured(serde_json::json!({ "count": 3 })).with_text("3 notes");
/// # let _ = output;
/// ```
#[derive(Debug, Clone, Default)]
pub struct ToolOutput {
    text: String,
    structured: Option<serde_json::Value>,
    items: Vec<ToolContentItem>,
    metadata: maitool_protocol::JsonObject,
}

impl ToolOutput {
    /// A text result.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            ..Self::default()
        }
    }

    /// A structured result from any serializable value. The model sees it as compact JSON
    /// when there is no text.
    pub fn structured(value: impl Serialize) -> Self {
        Self::default().with_structured(value)
    }

    /// A result made of one content item (an image, audio, a resource link, ...).
    pub fn item(item: ToolContentItem) -> Self {
        Self::default().with_item(item)
    }

    /// Sets the text.
    pub fn with_text(mut self, text: impl Into<String>) -> Self {
        self.text = text.into();
        self
    }

    /// Sets the structured content. A value that cannot be represented as JSON becomes
    /// `null` and is logged.
    pub fn with_structured(mut self, value: impl Serialize) -> Self {
        self.structured = match serde_json::to_value(value) {
            Ok(value) => Some(value),
            Err(err) => {
                tracing::error!("structured content is not JSON-serializable: {err}");
                None
            }
        };
        self
    }

    /// Appends a content item.
    pub fn with_item(mut self, item: ToolContentItem) -> Self {
        self.items.push(item);
        self
    }

    /// Sets one metadata entry of the result (e.g. `pause_execution`).
    pub fn with_metadata(mut self, key: &str, value: impl Into<serde_json::Value>) -> Self {
        self.metadata.insert(key.to_owned(), value.into());
        self
    }

    /// The successful result this output makes. It is left unnamed: the runner sends it
    /// under the tool's name.
    pub(crate) fn into_result(self) -> ToolExecutionResult {
        ToolExecutionResult {
            success: true,
            content: self.text,
            structured_content: self.structured,
            content_items: self.items,
            metadata: self.metadata,
            ..ToolExecutionResult::default()
        }
    }
}

impl From<String> for ToolOutput {
    fn from(text: String) -> Self {
        ToolOutput::text(text)
    }
}

impl From<&str> for ToolOutput {
    fn from(text: &str) -> Self {
        ToolOutput::text(text)
    }
}

/// A tool failure; becomes a failed result whose error message is this text. Any
/// `std::error::Error` converts into it, so handlers can use `?`.
#[derive(Debug, Clone)]
pub struct ToolError {
    message: String,
}

impl ToolError {
    /// A failure with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

// Like anyhow::Error, ToolError deliberately does not implement std::error::Error, so this
// blanket conversion does not overlap with `From<T> for T`.
impl<E: std::error::Error> From<E> for ToolError {
    fn from(err: E) -> Self {
        ToolError::new(err.to_string())
    }
}
