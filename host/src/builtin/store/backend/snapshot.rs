//! [`SnapshotBackend`]: every row of the store out and in, for `maitool store copy`.

use async_trait::async_trait;

use crate::builtin::store::{StoreError, StoreSnapshot};

/// Every table's rows, keys included, so that a copy keeps ids the rows refer to each other by.
#[async_trait]
pub trait SnapshotBackend {
    /// Every row, each table in key order.
    async fn dump(&self) -> Result<StoreSnapshot, StoreError>;
    /// Writes the rows of a snapshot. A row whose key is already stored is left as it is (the
    /// caller compares a fresh [`dump`](Self::dump) with what it loaded to find conflicts),
    /// so loading the same snapshot twice changes nothing.
    async fn load(&self, snapshot: StoreSnapshot) -> Result<(), StoreError>;
}
