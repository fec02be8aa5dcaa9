//! Support code for the SDK's macros; not part of the API.

use crate::{ToolError, ToolOutput};

/// A `#[tool]` function's result as a handler's: any output that converts into
/// [`ToolOutput`] (a `String`, ...) and any error that converts into [`ToolError`].
pub fn outcome<O, E>(result: Result<O, E>) -> Result<ToolOutput, ToolError>
where
    O: Into<ToolOutput>,
    E: Into<ToolError>,
{
    result.map(Into::into).map_err(Into::into)
}
