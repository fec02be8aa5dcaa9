//! Exposed tool names: the MCP name by default, `tool_prefix + name` when a server has a
//! prefix, kept to MCP's `[A-Za-z0-9_.-]{1,128}` in that case.

/// The longest tool name MCP allows.
pub const MAX_TOOL_NAME_LEN: usize = 128;

/// Whether `c` may appear in an MCP tool name.
pub fn is_tool_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')
}

/// The name a server's tool is exposed under. Without a prefix the MCP name is kept as is
/// (MaiBot behaviour). With one, characters outside `[A-Za-z0-9_.-]` become `_` and the
/// result is cut to 128 characters, so a prefixed name is always a valid MCP tool name.
pub fn exposed_name(prefix: &str, mcp_name: &str) -> String {
    if prefix.is_empty() {
        return mcp_name.to_owned();
    }
    prefix
        .chars()
        .chain(mcp_name.chars())
        .map(|c| if is_tool_name_char(c) { c } else { '_' })
        .take(MAX_TOOL_NAME_LEN)
        .collect()
}

#[cfg(test)]
mod tests;
