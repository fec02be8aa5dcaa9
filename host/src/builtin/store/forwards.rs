//! Forwarded-messages bundles: a message that carries other messages, possibly nested. The
//! tree is stored as JSON next to its message and walked level by level.

use super::StoreError;
use crate::builtin::engine::{ForwardNode, ForwardView};

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
