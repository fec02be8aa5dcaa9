//! The plugin runtime.
