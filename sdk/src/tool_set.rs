//! Adding many tools at once, such as those a `#[tools]` impl block collects.

use crate::{Plugin, Tool};

impl Plugin {
    /// Adds each of these tools, in order: `.tools(Dice::default().into_tools())` for the
    /// methods of a [`#[tools]`](crate::tools) impl block.
    ///
    /// ```
    /// use maitool_sdk::prelude::*;
    ///
    /// /// Says hello.
    /// #[maitool_sdk::tool]
    /// async fn hello() -> Result<ToolOutput, ToolError> {
    ///     Ok(ToolOutput::text("hello"))
    /// }
    ///
    /// let plugin = Plugin::new("examples.hello", "1.0.0").tools([hello_tool()]);
    /// # let _ = plugin;
    /// ```
    pub fn tools(self, tools: impl IntoIterator<Item = Tool>) -> Self {
        tools.into_iter().fold(self, Plugin::tool)
    }
}
