//! Forwarded-messages bundles in SQLite: the tree as JSON next to its message.

use rusqlite::{Connection, OptionalExtension, params};

use crate::builtin::engine::{ForwardNode, ForwardView};
use crate::builtin::store::StoreError;
use crate::builtin::store::forwards::walk;

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

/// The bundle of `msg_id` in `stream_id`, walked down `path`.
pub(super) fn view(
    conn: &Connection,
    stream_id: &str,
    msg_id: &str,
    path: &[usize],
) -> Result<Option<ForwardView>, StoreError> {
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
    walk(msg_id, nodes, path).map(Some)
}
