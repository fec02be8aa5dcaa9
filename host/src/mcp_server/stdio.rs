//! The stdio transport's front door: every line from the client is checked before rmcp sees
//! it, so that malformed input gets the JSON-RPC error the spec names instead of silence.
//!
//! rmcp ignores a line that is not JSON (and one over its line limit), and reads a request
//! whose `params` do not fit the method as an unknown method (-32601). Here:
//!
//! | line | answer |
//! |---|---|
//! | not UTF-8, not JSON, or nested deeper than serde_json's limit (128) | -32700 parse error, `id: null` |
//! | longer than [`MAX_LINE`] | -32600 invalid request, `id: null` (the line is skipped) |
//! | a batch (an array: removed from MCP in 2025-06-18), or not an object | -32600, `id: null` |
//! | a request whose `params` is not an object | -32602 invalid params, with its id |
//! | `tools/call` whose `arguments` is present and not an object | -32602, with its id |
//!
//! Anything else goes to rmcp unchanged. rmcp's output and these answers share stdout
//! through one writer, a whole line at a time.

use rmcp::model::ErrorCode;
use serde_json::{Value, json};

use maitool_protocol::json_kind as kind;
use tokio::io::{
    AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream, duplex,
};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// The longest line accepted (rmcp's own limit).
pub const MAX_LINE: usize = 16 * 1024 * 1024;
/// Buffer of the pipes between this layer and rmcp.
const PIPE: usize = 64 * 1024;

/// The pipes rmcp serves on (read, write), and the task that copies rmcp's output and this
/// layer's answers to `output`; it ends once rmcp has closed its side and `input` reached
/// end of file.
pub fn guard(
    input: impl AsyncRead + Send + Unpin + 'static,
    output: impl AsyncWrite + Send + Unpin + 'static,
) -> ((DuplexStream, DuplexStream), JoinHandle<()>) {
    let (to_rmcp, rmcp_in) = duplex(PIPE);
    let (rmcp_out, from_rmcp) = duplex(PIPE);
    let (answers, answered) = mpsc::unbounded_channel();
    tokio::spawn(read_client(input, to_rmcp, answers));
    let writer = tokio::spawn(write_client(from_rmcp, answered, output));
    ((rmcp_in, rmcp_out), writer)
}

async fn read_client(
    input: impl AsyncRead + Unpin,
    mut to_rmcp: DuplexStream,
    answers: mpsc::UnboundedSender<Vec<u8>>,
) {
    let mut input = BufReader::new(input);
    let mut line = Vec::new();
    loop {
        line.clear();
        let oversized = match read_line(&mut input, &mut line).await {
            Ok(Line::Eof) => return,
            Ok(Line::Complete) => false,
            Ok(Line::Oversized) => true,
            Err(err) => {
                tracing::warn!("reading the MCP client on stdin failed: {err}");
                return;
            }
        };
        let verdict = if oversized {
            Err(error(
                Value::Null,
                ErrorCode::INVALID_REQUEST,
                format!("Invalid Request: message longer than {MAX_LINE} bytes"),
            ))
        } else {
            check(&line)
        };
        match verdict {
            Ok(true) => {
                line.push(b'\n');
                if to_rmcp.write_all(&line).await.is_err() {
                    return;
                }
            }
            Ok(false) => {}
            Err(answer) => {
                tracing::warn!(
                    "refused a malformed MCP message on stdin: {}",
                    answer["error"]["message"]
                );
                let mut bytes = answer.to_string().into_bytes();
                bytes.push(b'\n');
                if answers.send(bytes).is_err() {
                    return;
                }
            }
        }
    }
}

enum Line {
    Complete,
    Oversized,
    Eof,
}

/// One line without its newline, at most [`MAX_LINE`] bytes kept (the rest is skipped).
async fn read_line(
    input: &mut (impl AsyncBufReadExt + Unpin),
    line: &mut Vec<u8>,
) -> std::io::Result<Line> {
    let mut oversized = false;
    loop {
        let chunk = input.fill_buf().await?;
        if chunk.is_empty() {
            return Ok(if line.is_empty() && !oversized {
                Line::Eof
            } else if oversized {
                Line::Oversized
            } else {
                Line::Complete
            });
        }
        let (taken, done) = match chunk.iter().position(|&byte| byte == b'\n') {
            Some(end) => (end, true),
            None => (chunk.len(), false),
        };
        if !oversized && line.len() + taken <= MAX_LINE {
            line.extend_from_slice(&chunk[..taken]);
        } else {
            oversized = true;
            line.clear();
        }
        input.consume(taken + usize::from(done));
        if done {
            return Ok(if oversized {
                Line::Oversized
            } else {
                Line::Complete
            });
        }
    }
}

/// `Ok(true)`: pass the line to rmcp; `Ok(false)`: skip it (blank); `Err`: the answer.
fn check(line: &[u8]) -> Result<bool, Value> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Ok(false);
    }
    let parse_error = |detail: String| {
        error(
            Value::Null,
            ErrorCode::PARSE_ERROR,
            format!("Parse error: {detail}"),
        )
    };
    let text = std::str::from_utf8(line)
        .map_err(|err| parse_error(format!("the message is not UTF-8 ({err})")))?;
    let message: Value = serde_json::from_str(text).map_err(|err| parse_error(format!("{err}")))?;
    let invalid = |detail: &str| {
        error(
            Value::Null,
            ErrorCode::INVALID_REQUEST,
            format!("Invalid Request: {detail}"),
        )
    };
    let object = match &message {
        Value::Object(object) => object,
        Value::Array(_) => return Err(invalid("JSON-RPC batches are not supported by MCP")),
        _ => return Err(invalid("a JSON-RPC message is an object")),
    };
    let (Some(id), Some(method)) = (
        object.get("id"),
        object.get("method").and_then(Value::as_str),
    ) else {
        return Ok(true);
    };
    let invalid_params = |detail: String| {
        error(
            id.clone(),
            ErrorCode::INVALID_PARAMS,
            format!("Invalid params: {detail}"),
        )
    };
    match object.get("params") {
        None | Some(Value::Null) | Some(Value::Object(_)) => {}
        Some(other) => {
            return Err(invalid_params(format!(
                "{method} params must be an object, got {}",
                kind(other)
            )));
        }
    }
    if method == "tools/call"
        && let Some(arguments) = object
            .get("params")
            .and_then(|params| params.get("arguments"))
        && !(arguments.is_object() || arguments.is_null())
    {
        return Err(invalid_params(format!(
            "tools/call arguments must be an object, got {}",
            kind(arguments)
        )));
    }
    Ok(true)
}

fn error(id: Value, code: ErrorCode, message: String) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code.0, "message": message}})
}

async fn write_client(
    from_rmcp: DuplexStream,
    mut answers: mpsc::UnboundedReceiver<Vec<u8>>,
    mut output: impl AsyncWrite + Unpin,
) {
    let mut from_rmcp = BufReader::new(from_rmcp);
    let mut line = Vec::new();
    let mut rmcp_open = true;
    let mut answers_open = true;
    while rmcp_open || answers_open {
        let bytes = tokio::select! {
            read = from_rmcp.read_until(b'\n', &mut line), if rmcp_open => match read {
                Ok(0) | Err(_) => {
                    rmcp_open = false;
                    continue;
                }
                Ok(_) => std::mem::take(&mut line),
            },
            answer = answers.recv(), if answers_open => match answer {
                Some(answer) => answer,
                None => {
                    answers_open = false;
                    continue;
                }
            },
        };
        if output.write_all(&bytes).await.is_err() || output.flush().await.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests;
