//! [`TimeBackend`]: times given as text, read by the database's own date functions.

use async_trait::async_trait;

use crate::builtin::engine::TimeBound;
use crate::builtin::store::StoreError;

/// Parsing of user-given times.
#[async_trait]
pub trait TimeBackend {
    /// Unix seconds of a time given as seconds or text (read as UTC).
    async fn parse_time(&self, bound: &TimeBound) -> Result<f64, StoreError>;
}
