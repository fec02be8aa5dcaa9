//! The name a tool gets when an earlier tool already has its name: MaiBot 1.3's rule
//! (`ToolRegistry._list_routes`), used between providers (the registry), between plugins
//! (the component registry) and between MCP servers (the MCP catalog), so that a duplicate is
//! kept under a source prefix instead of dropped.
//!
//! The first tool to claim a name keeps it. A later one is named
//! `<kind>_<source>_<name>` (`plugin_acme_web_search` for the `search` tool of plugin
//! `acme.web`, `mcp_files_read` for the `read` tool of MCP server `files`), or
//! `<source>_<name>` when the source is the kind itself (`builtin_search`), with every
//! character outside `[A-Za-z0-9_-]` replaced by `_`. A name longer than 64 characters (what
//! model APIs accept), or one that is taken, is cut to 51 characters and given `_` and 12 hex
//! digits of the SHA-256 of `<provider>:<source>:<name>`.

use sha2::{Digest, Sha256};

/// The metadata key of a renamed tool's spec that holds the name it was declared under
/// (MaiBot's key).
pub const ORIGINAL_NAME_KEY: &str = "registry_original_name";

/// The longest name a renamed tool gets: model APIs refuse function names over 64 characters.
const MAX_LEN: usize = 64;
/// Where a name that is too long or taken is cut before its digest.
const CUT_AT: usize = 51;

/// Where a duplicate comes from, for its new name.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Origin<'a> {
    /// The provider kind: `plugin`, `mcp`, `builtin`, ...
    pub kind: &'a str,
    /// The provider's name, part of the digest only.
    pub provider: &'a str,
    /// The plugin id, MCP server name, or the provider's name.
    pub source: &'a str,
}

/// The name the tool `name` of `origin` gets because an earlier tool has `name`; `None` when
/// even the digest form is taken (a name chosen to collide). `taken` says whether a name is
/// in use (declared or already given out).
pub(crate) fn renamed(
    origin: Origin<'_>,
    name: &str,
    taken: impl Fn(&str) -> bool,
) -> Option<String> {
    let prefix = if origin.source == origin.kind {
        origin.source.to_owned()
    } else {
        format!("{}_{}", origin.kind, origin.source)
    };
    let candidate: String = format!("{prefix}_{name}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if candidate.len() <= MAX_LEN && !taken(&candidate) {
        return Some(candidate);
    }
    let digest = Sha256::digest(format!("{}:{}:{name}", origin.provider, origin.source));
    let hex: String = digest
        .iter()
        .take(6)
        .map(|byte| format!("{byte:02x}"))
        .collect();
    // The candidate is ASCII, so any byte index is a character boundary.
    let cut = &candidate[..candidate.len().min(CUT_AT)];
    let hashed = format!("{cut}_{hex}");
    (!taken(&hashed)).then_some(hashed)
}

#[cfg(test)]
mod tests;
