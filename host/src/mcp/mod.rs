//! MCP tools (issue: MCP tools).
