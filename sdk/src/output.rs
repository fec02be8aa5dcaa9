//! What a tool handler returns.

use std::any::TypeId;

use maitool_protocol::{ToolContentItem, ToolExecutionResult};
use schemars::JsonSchema;
use serde::Serialize;

/// A successful tool result: text, structured content and content items, in any mix.
///
/// The model reads the text; when there is none, it reads the structured content as
/// compact JSON, then the content items' descriptions.
///
/// ```
/// use maitool_sdk::prelude::*;
///
/// #[maitool_sdk::output]
/// struct Forecast {
///     city: String,
///     celsius: f64,
/// }
///
/// #[maitool_sdk::args]
/// struct CityArgs {
///     city: String,
/// }
///
/// let forecast = Tool::new("forecast", "Tomorrow's weather.", |a: CityArgs, _ctx: ToolContext| async move {
///     let text = format!("{}: 21.5 °C", a.city);
///     let forecast = Forecast { city: a.city, celsius: 21.5 };
///     // Structured content checked against the declared output type, plus a line of text.
///     Ok(ToolOutput::typed(forecast).with_text(text))
/// })
/// .output::<Forecast>();
/// # let _ = forecast;
/// ```
#[derive(Debug, Clone, Default)]
pub struct ToolOutput {
    text: String,
    structured: Option<serde_json::Value>,
    /// The Rust type of `structured` when it came from [`ToolOutput::typed`].
    typed: Option<OutputType>,
    items: Vec<ToolContentItem>,
    metadata: maitool_protocol::JsonObject,
    pub(crate) post_history: Vec<serde_json::Value>,
    stop_after_execution: bool,
}

/// The Rust type of a tool's structured output, to compare a typed output with the tool's
/// declaration.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OutputType {
    id: TypeId,
    name: &'static str,
}

impl OutputType {
    /// The output type `T`.
    pub(crate) fn of<T: ?Sized + 'static>() -> Self {
        Self {
            id: TypeId::of::<T>(),
            name: std::any::type_name::<T>(),
        }
    }
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
    /// when there is no text. Prefer [`typed`](Self::typed) for a tool that declares its
    /// output with [`Tool::output`](crate::Tool::output).
    pub fn structured(value: impl Serialize) -> Self {
        Self::default().with_structured(value)
    }

    /// A structured result of the tool's declared output type `T`
    /// ([`Tool::output::<T>()`](crate::Tool::output)). The SDK checks the two agree: when the
    /// tool declares another output type, or none, the call fails with
    /// `tool NAME returned output of type X but declares ...`.
    pub fn typed<T: Serialize + JsonSchema + 'static>(value: T) -> Self {
        let mut output = Self::default().with_structured(value);
        output.typed = Some(OutputType::of::<T>());
        output
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

    /// Sets the structured content, untyped (see [`typed`](Self::typed)). A value that
    /// cannot be represented as JSON becomes `null` and is logged.
    pub fn with_structured(mut self, value: impl Serialize) -> Self {
        self.typed = None;
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

    /// Asks the engine to end the planner round once the turn's tool calls have run
    /// (MaiBot 1.3's `stop_after_execution`): the calls after this one in the same turn still
    /// run, then the round ends and the session waits for new messages. For a tool whose
    /// every success should end the round, declare it instead with
    /// [`Tool::stop_after_execution`](crate::Tool::stop_after_execution).
    ///
    /// ```
    /// use maitool_sdk::prelude::*;
    ///
    /// #[maitool_sdk::args]
    /// struct Note {
    ///     text: String,
    /// }
    ///
    /// let farewell = Tool::new("say_goodbye", "Says goodbye.", |note: Note, _ctx: ToolContext| async move {
    ///     // Nothing more to do this round once the goodbye is said.
    ///     Ok(ToolOutput::text(format!("goodbye: {}", note.text)).stop_after_execution())
    /// });
    /// # let _ = farewell;
    /// ```
    pub fn stop_after_execution(mut self) -> Self {
        self.stop_after_execution = true;
        self
    }

    /// This output if its typed content (if any) is the tool's declared output type.
    pub(crate) fn checked(
        self,
        tool: &str,
        declared: Option<OutputType>,
    ) -> Result<Self, crate::ToolError> {
        let Some(typed) = self.typed else {
            return Ok(self);
        };
        match declared {
            Some(declared) if declared.id == typed.id => Ok(self),
            Some(declared) => Err(crate::ToolError::new(format!(
                "tool {tool} returned output of type {} but declares output type {}",
                typed.name, declared.name
            ))),
            None => Err(crate::ToolError::new(format!(
                "tool {tool} returned output of type {} but declares no output type: add \
                 .output::<{}>() to the tool",
                typed.name, typed.name
            ))),
        }
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
            post_history_messages: self.post_history,
            stop_after_execution: self.stop_after_execution,
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
///
/// ```
/// use maitool_sdk::prelude::*;
///
/// async fn parse_count(text: &str, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
///     let count: u32 = text.parse()?; // ParseIntError: "invalid digit found in string"
///     if count == 0 {
///         return Err(ToolError::new("count must be at least 1"));
///     }
///     ctx.kv().set("count", &count).await?; // HostError: names the capability
///     Ok(ToolOutput::text(format!("count is {count}")))
/// }
/// ```
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
