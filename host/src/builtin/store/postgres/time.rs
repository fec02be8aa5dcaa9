//! Text times read by PostgreSQL's `timestamptz` input, as UTC.

use async_trait::async_trait;
use deadpool_postgres::ClientWrapper;
use tokio_postgres::error::SqlState;

use super::PostgresStore;
use crate::builtin::engine::TimeBound;
use crate::builtin::store::StoreError;
use crate::builtin::store::backend::TimeBackend;
use crate::builtin::store::time::{Bound, End, classify, finish};

/// Whether a statement failed on the data it was given (class 22: a text that is not a time),
/// rather than on the database.
pub(super) fn is_data_error(error: &tokio_postgres::Error) -> bool {
    error
        .code()
        .is_some_and(|code: &SqlState| code.code().starts_with("22"))
}

/// Unix seconds of a bound; `what` names the argument in the error.
pub(super) async fn resolve(
    client: &mut ClientWrapper,
    bound: &TimeBound,
    end: End,
    what: &str,
) -> Result<f64, StoreError> {
    let text = match classify(bound, what)? {
        Bound::Seconds(seconds) => return Ok(seconds),
        Bound::Text(text) => text,
    };
    // A text without a zone is read in the session's zone: UTC for this transaction alone,
    // so that a time means the same on every host whatever the server's setting.
    let tx = client.transaction().await?;
    tx.batch_execute("SET LOCAL TimeZone = 'UTC'").await?;
    let parsed = match tx
        .query_one(
            "SELECT extract(epoch FROM $1::text::timestamptz)::float8",
            &[&text],
        )
        .await
    {
        Ok(row) => Some(row.get::<_, f64>(0)),
        Err(error) if is_data_error(&error) => None,
        Err(error) => return Err(error.into()),
    };
    finish(text, parsed, end, what)
}

#[async_trait]
impl TimeBackend for PostgresStore {
    async fn parse_time(&self, bound: &TimeBound) -> Result<f64, StoreError> {
        if let Bound::Seconds(seconds) = classify(bound, "time")? {
            return Ok(seconds);
        }
        let mut client = self.client().await?;
        resolve(&mut client, bound, End::Start, "time").await
    }
}
