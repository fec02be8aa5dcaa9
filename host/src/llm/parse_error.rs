use super::ModelApi;

/// Why a model's raw tool calls could not be turned into invocations.
///
/// `index` is always the position of the offending item in the array of calls (or of output
/// items, content blocks or parts, for the APIs that mix calls with other items), so a log line
/// points at the exact element of the model's answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolCallParseError {
    /// The input is neither the API's answer object nor an array of its items.
    #[error("{api} tool calls: expected {expected}, found {found}")]
    UnexpectedShape {
        /// The API whose shape was expected.
        api: ModelApi,
        /// What the parser accepts.
        expected: &'static str,
        /// What it got.
        found: String,
    },
    /// An item of the array is not a JSON object.
    #[error("tool call {index}: expected an object, found {found}")]
    NotAnObject {
        /// Position of the item.
        index: usize,
        /// The JSON kind of the item.
        found: &'static str,
    },
    /// A required field is absent, null or empty.
    #[error("tool call {index}: missing field `{field}`")]
    MissingField {
        /// Position of the item.
        index: usize,
        /// Path of the field inside the item, e.g. `function.name`.
        field: &'static str,
    },
    /// A field is present with the wrong JSON kind.
    #[error("tool call {index}: field `{field}` must be {expected}, found {found}")]
    InvalidField {
        /// Position of the item.
        index: usize,
        /// Path of the field inside the item.
        field: &'static str,
        /// The kind the API documents.
        expected: &'static str,
        /// The kind it had.
        found: &'static str,
    },
    /// An OpenAI Chat tool call of a kind other than `function` (e.g. `custom`), which no
    /// rendered tool can have produced.
    #[error("tool call {index}: unsupported tool call type `{kind}`, expected `function`")]
    UnsupportedCallType {
        /// Position of the item.
        index: usize,
        /// The `type` it declared.
        kind: String,
    },
    /// The arguments string is not valid JSON, e.g. truncated by a token limit.
    #[error("tool call {index} (`{tool}`): arguments are not valid JSON: {reason}")]
    MalformedArguments {
        /// Position of the item.
        index: usize,
        /// The tool the model called.
        tool: String,
        /// The JSON parser's message.
        reason: String,
    },
    /// The arguments are valid JSON but not an object.
    #[error("tool call {index} (`{tool}`): arguments must be a JSON object, found {found}")]
    ArgumentsNotObject {
        /// Position of the item.
        index: usize,
        /// The tool the model called.
        tool: String,
        /// The JSON kind of the arguments.
        found: &'static str,
    },
}
