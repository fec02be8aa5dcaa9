//! The plugin-side engine.
