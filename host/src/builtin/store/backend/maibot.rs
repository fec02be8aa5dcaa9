//! [`MaibotBackend`]: the store seen as MaiBot's database.

use async_trait::async_trait;
use serde_json::{Map, Value};

use crate::builtin::store::{MaibotTable, StoreError, TableQuery};

/// Read-only views under MaiBot's model and field names (see
/// [`MaibotTable`](crate::builtin::store::MaibotTable)).
#[async_trait]
pub trait MaibotBackend {
    /// Rows of a MaiBot table as MaiBot's rows (field name to value).
    async fn maibot_rows(
        &self,
        table: MaibotTable,
        query: TableQuery,
    ) -> Result<Vec<Map<String, Value>>, StoreError>;
    /// How many rows of a MaiBot table match the filters.
    async fn maibot_count(
        &self,
        table: MaibotTable,
        filters: Vec<(String, Value)>,
    ) -> Result<usize, StoreError>;
}
