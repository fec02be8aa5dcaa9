//! `tools/list` pagination: opaque cursors and page selection.
//!
//! The registry lists tools in a deterministic order (registration order, first wins), but
//! the list can change between two pages (a runner restarts). A cursor therefore carries both
//! the offset of the next page and the name of the last tool sent: when the tool before the
//! offset is no longer that name, the next page starts right after wherever that tool moved,
//! so a client neither skips nor repeats tools that stayed. (The client also receives
//! `notifications/tools/list_changed` and should re-list from the start.)
//!
//! On the wire the cursor is `base64url("mt1:" offset ":" last_name)`; clients must treat it
//! as opaque. Anything else is refused with JSON-RPC "invalid params".

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

const PREFIX: &str = "mt1:";

/// A position in the tool list, decoded from a cursor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cursor {
    /// Index of the first tool of the next page.
    pub offset: usize,
    /// Name of the last tool of the previous page.
    pub last: String,
}

/// A cursor that is not one this server issued.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid tools/list cursor {cursor:?}: {reason}; start again without a cursor")]
pub struct CursorError {
    /// The cursor received.
    pub cursor: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

impl Cursor {
    /// The opaque wire form.
    pub fn encode(&self) -> String {
        URL_SAFE_NO_PAD.encode(format!("{PREFIX}{}:{}", self.offset, self.last))
    }

    /// Decodes a cursor this server issued.
    pub fn decode(cursor: &str) -> Result<Cursor, CursorError> {
        let fail = |reason| CursorError {
            cursor: cursor.to_owned(),
            reason,
        };
        let bytes = URL_SAFE_NO_PAD
            .decode(cursor.trim())
            .map_err(|_| fail("not base64url"))?;
        let text = String::from_utf8(bytes).map_err(|_| fail("not UTF-8"))?;
        let body = text
            .strip_prefix(PREFIX)
            .ok_or_else(|| fail("unknown cursor format"))?;
        let (offset, last) = body.split_once(':').ok_or_else(|| fail("no tool name"))?;
        let offset: usize = offset.parse().map_err(|_| fail("bad offset"))?;
        if offset == 0 || last.is_empty() {
            return Err(fail("not a position after a tool"));
        }
        Ok(Cursor {
            offset,
            last: last.to_owned(),
        })
    }
}

/// The page of `names` that follows `cursor` (`None`: the first page), as an index range,
/// plus the cursor of the page after it (`None` on the last page). `page_size` is at least 1.
pub fn page<S: AsRef<str>>(
    names: &[S],
    cursor: Option<&Cursor>,
    page_size: usize,
) -> (std::ops::Range<usize>, Option<Cursor>) {
    let page_size = page_size.max(1);
    let start = match cursor {
        None => 0,
        Some(cursor) => resume_at(names, cursor),
    };
    let end = start.saturating_add(page_size).min(names.len());
    let next = (end < names.len()).then(|| Cursor {
        offset: end,
        last: names[end - 1].as_ref().to_owned(),
    });
    (start..end, next)
}

fn resume_at<S: AsRef<str>>(names: &[S], cursor: &Cursor) -> usize {
    let before = cursor.offset.checked_sub(1).and_then(|i| names.get(i));
    if before.is_some_and(|name| name.as_ref() == cursor.last) {
        return cursor.offset;
    }
    match names.iter().position(|name| name.as_ref() == cursor.last) {
        Some(moved) => moved + 1,
        // The last tool sent is gone: the offset is the best guess left.
        None => cursor.offset.min(names.len()),
    }
}
