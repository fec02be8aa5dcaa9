//! An incremental parser of `text/event-stream` bodies (the WHATWG server-sent events
//! format), bounded so a server cannot grow one event without limit.

/// The largest event accepted, as for stdio lines.
pub const MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;

/// An event larger than [`MAX_EVENT_BYTES`]: the stream is given up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("an SSE event exceeds {MAX_EVENT_BYTES} bytes")]
pub struct EventTooLarge;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field; `message` when absent.
    pub event: String,
    /// The `data:` lines joined by `\n`.
    pub data: String,
}

/// Feeds bytes in, gets complete events out.
#[derive(Debug, Default)]
pub struct SseParser {
    line: Vec<u8>,
    event: Option<String>,
    data: Option<String>,
    size: usize,
}

impl SseParser {
    /// Parses `bytes` (any split of the stream), appending complete events to `out`.
    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) -> Result<(), EventTooLarge> {
        for chunk in bytes.split_inclusive(|b| *b == b'\n') {
            let (part, complete) = match chunk.strip_suffix(b"\n") {
                Some(part) => (part, true),
                None => (chunk, false),
            };
            self.size += chunk.len();
            if self.size > MAX_EVENT_BYTES {
                return Err(EventTooLarge);
            }
            self.line.extend_from_slice(part);
            if complete {
                let mut line = std::mem::take(&mut self.line);
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                self.line_done(&line, out);
            }
        }
        Ok(())
    }

    fn line_done(&mut self, line: &[u8], out: &mut Vec<SseEvent>) {
        if line.is_empty() {
            self.size = 0;
            if let Some(data) = self.data.take() {
                out.push(SseEvent {
                    event: self.event.take().unwrap_or_else(|| "message".to_owned()),
                    data,
                });
            }
            self.event = None;
            return;
        }
        if line[0] == b':' {
            return; // a comment (keep-alive)
        }
        let line = String::from_utf8_lossy(line);
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_ref(), ""),
        };
        match field {
            "event" => self.event = Some(value.to_owned()),
            "data" => match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_owned()),
            },
            // `id` and `retry` matter for resuming a stream; MCP's SSE transport does not
            // resume, so they are ignored.
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests;
