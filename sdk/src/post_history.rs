//! Messages a tool adds to the conversation after the turn's tool results.

use serde::Serialize;

use crate::ToolOutput;

impl ToolOutput {
    /// Appends a message to the result's `post_history_messages`: the engine adds it to the
    /// conversation history after all the tool results of the turn (MaiBot's semantics;
    /// messages with the same `message_id` are kept once). A message is a JSON object in the
    /// model API's message shape, e.g. `{"role": "user", "content": "..."}`. A value that
    /// cannot be represented as JSON is left out and logged.
    ///
    /// ```
    /// use maitool_sdk::{ToolOutput, json};
    ///
    /// let output = ToolOutput::text("reminder set").with_post_history_message(json!({
    ///     "role": "user",
    ///     "content": "[reminder] water the plants at 18:00",
    ///     "message_id": "reminder-42",
    /// }));
    /// # let _ = output;
    /// ```
    pub fn with_post_history_message(mut self, message: impl Serialize) -> Self {
        match serde_json::to_value(message) {
            Ok(value) => self.post_history.push(value),
            Err(err) => tracing::error!("post-history message is not JSON-serializable: {err}"),
        }
        self
    }
}
