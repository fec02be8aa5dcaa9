//! The floor's frames, shared by its client (`floor.rs`) and its server
//! (`bin/maitool-bench-floor.rs`): named-field MessagePack maps with a dynamic JSON arguments
//! object, as a host and a runner would carry, padded to the sizes of a real invocation.

use anyhow::Result;
use maitool_protocol::JsonObject;
use serde::{Deserialize, Serialize};

/// The floor's request: a named-field map with a dynamic `arguments` object, as a host
/// would carry it; `pad` brings it to the real request's size.
#[derive(Debug, Serialize, Deserialize)]
pub struct FloorRequest {
    pub id: u64,
    pub method: String,
    pub params: FloorParams,
}

/// The request's parameters.
#[derive(Debug, Serialize, Deserialize)]
pub struct FloorParams {
    pub tool_name: String,
    pub arguments: JsonObject,
    pub session_id: String,
    pub stream_id: String,
    pub pad: String,
}

/// The floor's response, padded to the real response's size.
#[derive(Debug, Serialize, Deserialize)]
pub struct FloorResponse {
    pub id: u64,
    pub result: FloorResult,
}

/// The response's result.
#[derive(Debug, Serialize, Deserialize)]
pub struct FloorResult {
    pub success: bool,
    pub content: String,
    pub pad: String,
}

/// The longest pad that keeps `encode(pad)` at most `target` bytes (MessagePack string
/// headers grow at 32 and 256 bytes, so the size is searched, not computed).
pub fn pad_for(target: usize, encode: impl Fn(&str) -> Result<Vec<u8>>) -> Result<String> {
    let base = encode("")?.len();
    if base >= target {
        return Ok(String::new());
    }
    let mut len = target - base;
    loop {
        let pad = "x".repeat(len);
        if encode(&pad)?.len() <= target || len == 0 {
            return Ok(pad);
        }
        len -= 1;
    }
}
