//! The unified tool registry.
