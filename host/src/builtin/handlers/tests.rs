//! Handler tests against the real store.
