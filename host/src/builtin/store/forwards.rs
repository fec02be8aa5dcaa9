//! Forwarded-messages bundles: a message that carries other messages, possibly nested. The
//! tree is stored as JSON next to its message and walked level by level.

use rusqlite::{Connection, OptionalExtension, params};

use super::{Store, StoreError};
use crate::builtin::engine::{ForwardNode, ForwardView};

pub(super) fn insert(
    conn: &Connection,
    message_id: &str,
    nodes: &[ForwardNode],
) -> Result<(), StoreError> {
    let json = serde_json::to_string(nodes)
        .map_err(|err| StoreError::Invalid(format!("forwarded messages: {err}")))?;
    conn.execute(
        "INSERT INTO forward_messages (message_id, nodes) VALUES (?1, ?2)
         ON CONFLICT (message_id) DO UPDATE SET nodes = excluded.nodes",
        params![message_id, json],
    )?;
    Ok(())
}

/// Walks `path` down the nested bundles of `nodes`.
pub(crate) fn walk(
    msg_id: &str,
    mut nodes: Vec<ForwardNode>,
    path: &[usize],
) -> Result<ForwardView, StoreError> {
    for (depth, &index) in path.iter().enumerate() {
        let walked = &path[..depth];
        let Some(node) = nodes.get_mut(index) else {
            return Err(StoreError::Invalid(format!(
                "path {path:?}: level {walked:?} of message {msg_id} has {} messages, no index \
                 {index}",
                nodes.len()
            )));
        };
        if node.forward.is_empty() {
            return Err(StoreError::Invalid(format!(
                "path {path:?}: message {index} at level {walked:?} of message {msg_id} is not a \
                 forwarded bundle"
            )));
        }
        nodes = std::mem::take(&mut node.forward);
    }
    Ok(ForwardView {
        msg_id: msg_id.to_owned(),
        path: path.to_vec(),
        nodes,
    })
}

impl Store {
    /// One level of the bundle carried by `msg_id` in `stream_id`, following `path`.
    pub async fn forward_view(
        &self,
        stream_id: &str,
        msg_id: &str,
        path: &[usize],
    ) -> Result<Option<ForwardView>, StoreError> {
        let (stream_id, msg_id, path) = (stream_id.to_owned(), msg_id.to_owned(), path.to_vec());
        self.call(move |conn| {
            let json: Option<String> = conn
                .query_row(
                    "SELECT f.nodes FROM forward_messages f
                     JOIN messages m ON m.message_id = f.message_id
                     WHERE f.message_id = ?1 AND m.stream_id = ?2",
                    params![msg_id, stream_id],
                    |row| row.get(0),
                )
                .optional()?;
            let Some(json) = json else {
                return Ok(None);
            };
            let nodes: Vec<ForwardNode> = serde_json::from_str(&json)
                .map_err(|err| StoreError::Corrupted(format!("forward of {msg_id}: {err}")))?;
            walk(&msg_id, nodes, &path).map(Some)
        })
        .await
    }
}
