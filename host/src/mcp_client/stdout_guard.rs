//! A stdio server's stdout, read line by line before rmcp sees it, so that a response over
//! the line limit fails its call at once instead of leaving it to time out.
//!
//! rmcp discards a line longer than its limit (16 MiB) with a log line, so the request it
//! answered waits until its idle timeout (300 s by default) and then reports a cancel. Here
//! an oversized line is skipped too, but its JSON-RPC `id` is read from its first and last
//! bytes (SDKs write `{"jsonrpc":"2.0","id":N,"result":...}` or
//! `{"result":...,"jsonrpc":"2.0","id":N}`), and rmcp gets a JSON-RPC error for that id in
//! its place: code -32603, message `response too large: ...`, and `data` with
//! [`TOO_LARGE_KEY`] set to the size seen, which the call maps to
//! `error_kind = "response_too_large"`.

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWriteExt, BufReader, DuplexStream, duplex};

/// The longest line passed on (rmcp's own limit).
pub const MAX_LINE: usize = 16 * 1024 * 1024;
/// `data` key of the error that stands in for an oversized response.
pub const TOO_LARGE_KEY: &str = "maitool/response_too_large_bytes";
/// Bytes kept from each end of an oversized line to find its id.
const EDGE: usize = 512;
const PIPE: usize = 64 * 1024;

/// The stream rmcp reads instead of `stdout`.
pub fn guard(server: String, stdout: impl AsyncRead + Send + Unpin + 'static) -> DuplexStream {
    let (mut to_rmcp, rmcp_reads) = duplex(PIPE);
    tokio::spawn(async move {
        let mut stdout = BufReader::new(stdout);
        let mut line = Vec::new();
        loop {
            line.clear();
            let read = match read_line(&mut stdout, &mut line).await {
                Ok(read) => read,
                Err(err) => {
                    tracing::debug!(server, "reading the MCP server's stdout failed: {err}");
                    return;
                }
            };
            let bytes = match read {
                Read::Eof => return,
                Read::Line => {
                    line.push(b'\n');
                    std::mem::take(&mut line)
                }
                Read::Oversized { size, head, tail } => {
                    let Some(id) = response_id(&head, &tail) else {
                        tracing::warn!(
                            server,
                            size,
                            "MCP server sent a message over {MAX_LINE} bytes that answers no request; discarded"
                        );
                        continue;
                    };
                    tracing::warn!(server, size, %id, "MCP server response over {MAX_LINE} bytes; its call fails");
                    let mut error = json!({"jsonrpc": "2.0", "id": id, "error": {
                        "code": -32603,
                        "message": format!("response too large: {size} bytes, over the {MAX_LINE}-byte message limit"),
                        "data": {TOO_LARGE_KEY: size},
                    }})
                    .to_string()
                    .into_bytes();
                    error.push(b'\n');
                    error
                }
            };
            if to_rmcp.write_all(&bytes).await.is_err() {
                return;
            }
        }
    });
    rmcp_reads
}

enum Read {
    Line,
    Oversized {
        size: usize,
        head: Vec<u8>,
        tail: Vec<u8>,
    },
    Eof,
}

/// One line into `line` (without its newline); a line over [`MAX_LINE`] is not kept, only
/// its size and first and last [`EDGE`] bytes.
async fn read_line(
    input: &mut (impl AsyncBufReadExt + Unpin),
    line: &mut Vec<u8>,
) -> std::io::Result<Read> {
    let mut size = 0usize;
    let mut oversized: Option<(Vec<u8>, Vec<u8>)> = None;
    loop {
        let chunk = input.fill_buf().await?;
        if chunk.is_empty() {
            // A last line without a newline counts as a line.
            return Ok(match oversized {
                Some((head, tail)) => Read::Oversized { size, head, tail },
                None if line.is_empty() => Read::Eof,
                None => Read::Line,
            });
        }
        let (taken, done) = match chunk.iter().position(|&byte| byte == b'\n') {
            Some(end) => (end, true),
            None => (chunk.len(), false),
        };
        let part = &chunk[..taken];
        size += taken;
        match &mut oversized {
            None if size <= MAX_LINE => line.extend_from_slice(part),
            None => {
                let head = line[..EDGE.min(line.len())].to_vec();
                let mut tail = std::mem::take(line);
                tail.extend_from_slice(part);
                let tail = tail[tail.len().saturating_sub(EDGE)..].to_vec();
                oversized = Some((head, tail));
            }
            Some((_, tail)) => {
                tail.extend_from_slice(part);
                let cut = tail.len().saturating_sub(EDGE);
                tail.drain(..cut);
            }
        }
        input.consume(taken + usize::from(done));
        if done {
            return Ok(match oversized {
                Some((head, tail)) => Read::Oversized { size, head, tail },
                None => Read::Line,
            });
        }
    }
}

/// The top-level `id` of a response from its first and last bytes.
fn response_id(head: &[u8], tail: &[u8]) -> Option<Value> {
    let tail = String::from_utf8_lossy(tail);
    let tail = tail.trim_end();
    // `..."id":N}` at the very end: the top-level object's last member.
    if let Some(body) = tail.strip_suffix('}')
        && let Some(at) = body.rfind("\"id\":")
        && !body[..at].ends_with('\\')
        && let Some(id) = id_value(&body[at + 5..])
    {
        return Some(id);
    }
    // `{"jsonrpc":"2.0","id":N,"result"...`: an id before the result starts.
    let head = String::from_utf8_lossy(head);
    let result = head.find("\"result\"").or_else(|| head.find("\"error\""))?;
    let at = head[..result].find("\"id\":")?;
    let value = head[at + 5..result].trim_end().trim_end_matches(',');
    id_value(value)
}

fn id_value(text: &str) -> Option<Value> {
    match serde_json::from_str::<Value>(text.trim()).ok()? {
        id @ (Value::Number(_) | Value::String(_)) => Some(id),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
