//! Built-in engine tools (issue: built-in engine tools).
