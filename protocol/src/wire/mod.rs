//! Frame codec, envelope and typed payloads.
