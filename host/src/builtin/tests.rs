//! Tests of the built-in provider, exposure, discovery and executor.
