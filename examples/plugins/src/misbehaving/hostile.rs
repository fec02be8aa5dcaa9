//! Hostile peers on a handshaken connection: floods, a runner that stops reading, broken
//! framing mid-session and crafted MessagePack no encoder would produce. Each mode reports
//! what it did on stderr, which the host logs tagged with the runner.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use maitool_protocol::wire::methods::{
    CapabilityRequestPayload, InvokePayload, LogBatchPayload, LogEntry, names,
};
use maitool_protocol::wire::{
    EmptyPayload, Envelope, EnvelopeHeader, MessageType, decode_header, decode_payload,
    encode_envelope,
};

use super::session::{Session, ToolDecl, Writer, answer_routine, read_frame};

/// How deep the crafted nested arrays go: far beyond any sane decoder's recursion budget.
const DEEP: usize = 100_000;

/// Runs a handshaken hostile mode; `None` if `mode` is not one.
pub fn run(mode: &str, address: &str, token: &str) -> Option<String> {
    let outcome = match mode {
        "huge_prefix_later" => huge_prefix_later(address, token),
        "truncated_later" => truncated_later(address, token),
        "flood" => flood(address, token, true),
        "flood_deaf" => flood(address, token, false),
        "deaf" => deaf(address, token),
        "crafted" => crafted(address, token),
        _ => return None,
    };
    Some(outcome.unwrap_or_else(|err| format!("failed: {err}")))
}

fn establish(address: &str, token: &str, tools: &[ToolDecl]) -> Result<Session, String> {
    Session::establish(address, token, "examples.hostile", tools)
}

/// A 0xFFFFFFFF length prefix (4 GiB) once the session is up.
fn huge_prefix_later(address: &str, token: &str) -> Result<String, String> {
    let mut session = establish(address, token, &[])?;
    let mut bytes = u32::MAX.to_be_bytes().to_vec();
    bytes.extend_from_slice(&[0x80; 64]);
    session.writer.raw(&bytes).map_err(|e| e.to_string())?;
    Ok(format!(
        "sent a 4 GiB length prefix; {}",
        drain(&mut session)
    ))
}

/// Announces a 1000-byte frame, sends 10 bytes of it, and never sends the rest.
fn truncated_later(address: &str, token: &str) -> Result<String, String> {
    let mut session = establish(address, token, &[])?;
    let mut bytes = 1000u32.to_be_bytes().to_vec();
    bytes.extend_from_slice(&[0x89; 10]);
    session.writer.raw(&bytes).map_err(|e| e.to_string())?;
    Ok(format!("stalled inside a frame; {}", drain(&mut session)))
}

/// Reads (and never answers) until the host closes the connection.
fn drain(session: &mut Session) -> String {
    let _ = session
        .reader
        .set_read_timeout(Some(Duration::from_secs(60)));
    let mut frames = 0;
    loop {
        match read_frame(&mut session.reader) {
            Ok(_) => frames += 1,
            Err(err) => {
                return format!("the host ended the session after {frames} more frames: {err}");
            }
        }
    }
}

/// Answers counted by outcome.
#[derive(Default)]
struct Tally {
    by_outcome: BTreeMap<String, u64>,
}

/// `cap.call` requests (kv.get, which this plugin is not granted) and log batches as fast as
/// the socket takes them. With `read`, a second thread reads and counts the answers (and keeps
/// answering health checks); without, the runner never reads again.
fn flood(address: &str, token: &str, read: bool) -> Result<String, String> {
    let count: u64 = std::env::var("MISBEHAVE_FLOOD_COUNT")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(100_000);
    let session = establish(
        address,
        token,
        &[ToolDecl {
            name: "flood_noop",
            timeout_ms: 0,
        }],
    )?;
    let tally = Arc::new(Mutex::new(Tally::default()));
    let answered = Arc::new(AtomicU64::new(0));
    if read {
        let (tally, answered) = (tally.clone(), answered.clone());
        let Session { mut reader, writer } = session.clone_halves()?;
        std::thread::spawn(move || {
            while let Ok(body) = read_frame(&mut reader) {
                let Ok(header) = decode_header(&body) else {
                    continue;
                };
                if answer_routine(&writer, &header) || header.message_type != MessageType::Response
                {
                    continue;
                }
                let outcome = header
                    .error
                    .map(|e| e.code.as_str().to_owned())
                    .unwrap_or_else(|| "ok".into());
                *tally.lock().unwrap().by_outcome.entry(outcome).or_default() += 1;
                answered.fetch_add(1, Ordering::Relaxed);
            }
        });
    }
    let started = Instant::now();
    let call = CapabilityRequestPayload {
        capability: "kv.get".into(),
        args: [("key".to_owned(), "k".into())].into_iter().collect(),
    };
    let batch = LogBatchPayload {
        entries: (0..16)
            .map(|i| LogEntry {
                level: 5,
                message: format!("flood record {i}"),
                plugin_id: "examples.hostile".into(),
                ..LogEntry::default()
            })
            .collect(),
    };
    let mut batches = 0u64;
    for i in 0..count {
        send(&session.writer, names::CAP_CALL, &call)?;
        if i % 64 == 0 {
            let envelope = Envelope::broadcast(0, names::LOG_BATCH, "examples.hostile", &batch);
            let body = encode_envelope(&envelope).map_err(|e| e.to_string())?;
            session.writer.frame(&body).map_err(|e| e.to_string())?;
            batches += 1;
        }
    }
    let sent_in = started.elapsed();
    if !read {
        eprintln!(
            "misbehaving runner (flood_deaf): sent {count} cap.call requests and {batches} log batches in {} ms without reading",
            sent_in.as_millis()
        );
        std::thread::sleep(Duration::from_secs(3600));
        return Ok("slept".into());
    }
    // Wait for the answers while they keep coming.
    let mut last = 0;
    loop {
        std::thread::sleep(Duration::from_millis(500));
        let now = answered.load(Ordering::Relaxed);
        if now >= count || now == last {
            break;
        }
        last = now;
    }
    let tally = tally.lock().unwrap();
    let outcomes: Vec<String> = tally
        .by_outcome
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    eprintln!(
        "misbehaving runner (flood): sent {count} cap.call requests and {batches} log batches in {} ms; answers: {}",
        sent_in.as_millis(),
        outcomes.join(" ")
    );
    std::thread::sleep(Duration::from_secs(3600));
    Ok("slept".into())
}

fn send<P: maitool_sdk::serde::Serialize>(
    writer: &Writer,
    method: &str,
    payload: &P,
) -> Result<u64, String> {
    writer
        .request(method, "examples.hostile", payload)
        .map_err(|e| format!("{method}: write failed: {e}"))
}

/// Declares `ignored` (1 s timeout), then never reads its socket again.
fn deaf(address: &str, token: &str) -> Result<String, String> {
    let _session = establish(
        address,
        token,
        &[ToolDecl {
            name: "ignored",
            timeout_ms: 1000,
        }],
    )?;
    eprintln!("misbehaving runner (deaf): ready; no longer reading");
    std::thread::sleep(Duration::from_secs(3600));
    Ok("slept".into())
}

/// Answers its tools with crafted MessagePack: `bad_utf8` (a result string that is not
/// UTF-8), `deep_result` (a result of 100 000 nested arrays) and `deep_extra_key` (a
/// response with an unknown envelope key holding 100 000 nested arrays). First it sends one
/// `cap.call` whose args nest 100 000 arrays deep, and reports the host's answer. Being a
/// MaiBot-style runner (its hello does not say `reads_context`), it also answers `echo_args`
/// with the names of the arguments it received, comma-separated and sorted.
fn crafted(address: &str, token: &str) -> Result<String, String> {
    let tools = ["bad_utf8", "deep_result", "deep_extra_key", "echo_args"].map(|name| ToolDecl {
        name,
        timeout_ms: 5000,
    });
    let mut session = establish(address, token, &tools)?;
    let deep_call = deep_cap_call(&session.writer)?;
    loop {
        let (header, body) = session.next_frame()?;
        if header.message_type == MessageType::Response && header.request_id == deep_call {
            let outcome = match &header.error {
                Some(error) => format!("error {}: {}", error.code.as_str(), error.message),
                None => "accepted".into(),
            };
            eprintln!("misbehaving runner (crafted): deep cap.call: {outcome}");
            continue;
        }
        if session.answer_routine(&header) || header.message_type != MessageType::Request {
            continue;
        }
        let invoke: InvokePayload = decode_payload(&body).map_err(|e| e.to_string())?;
        let sent = match invoke.component_name.as_str() {
            "bad_utf8" => session.writer.answer_raw(&header, &bad_utf8_result()),
            "deep_result" => session.writer.answer_raw(&header, &deep_result()),
            "deep_extra_key" => session.writer.frame(&deep_extra_key(&header)?),
            "echo_args" => {
                let names: Vec<&str> = invoke.args.keys().map(String::as_str).collect();
                session
                    .writer
                    .answer_raw(&header, &text_result(&names.join(",")))
            }
            other => session.writer.answer_raw(&header, &text_result(other)),
        };
        sent.map_err(|e| e.to_string())?;
    }
}

/// Sends `cap.call` kv.get whose `args.key` is 100 000 nested arrays.
fn deep_cap_call(writer: &Writer) -> Result<u64, String> {
    let mut payload = map(2);
    payload.extend(str_bytes(b"capability"));
    payload.extend(str_bytes(b"kv.get"));
    payload.extend(str_bytes(b"args"));
    payload.extend(map(1));
    payload.extend(str_bytes(b"key"));
    payload.extend(nested_arrays(DEEP));
    // An empty payload is the one-byte map 0x80 right after the `payload` key: swap it.
    let id = u64::MAX / 2;
    let envelope = Envelope::request(
        id,
        names::CAP_CALL,
        "examples.hostile",
        10_000,
        EmptyPayload {},
    );
    let body = encode_envelope(&envelope).map_err(|e| e.to_string())?;
    let mut key = str_bytes(b"payload");
    key.push(0x80);
    let at = body
        .windows(key.len())
        .position(|w| w == key.as_slice())
        .ok_or("no payload key")?;
    let mut crafted = body[..at + key.len() - 1].to_vec();
    crafted.extend(payload);
    crafted.extend_from_slice(&body[at + key.len()..]);
    writer.frame(&crafted).map_err(|e| e.to_string())?;
    Ok(id)
}

/// `{success: true, tool_result: {tool_name, success: true, content: <not UTF-8>}}`.
fn bad_utf8_result() -> Vec<u8> {
    let mut out = map(2);
    out.extend(str_bytes(b"success"));
    out.push(0xc3);
    out.extend(str_bytes(b"tool_result"));
    out.extend(map(3));
    out.extend(str_bytes(b"tool_name"));
    out.extend(str_bytes(b"bad_utf8"));
    out.extend(str_bytes(b"success"));
    out.push(0xc3);
    out.extend(str_bytes(b"content"));
    out.extend(str_bytes(b"ok \xff\xfe not utf-8"));
    out
}

/// `{success: true, result: [[[...0...]]]}`, 100 000 arrays deep.
fn deep_result() -> Vec<u8> {
    let mut out = map(2);
    out.extend(str_bytes(b"success"));
    out.push(0xc3);
    out.extend(str_bytes(b"result"));
    out.extend(nested_arrays(DEEP));
    out
}

/// A well-formed response plus a tenth envelope key, `extra`, holding 100 000 nested arrays.
fn deep_extra_key(request: &EnvelopeHeader) -> Result<Vec<u8>, String> {
    let body = maitool_protocol::wire::encode_response_raw(request, &text_result("fine"))
        .map_err(|e| e.to_string())?;
    let mut out = body.to_vec();
    if out.first() != Some(&0x89) {
        return Err("unexpected envelope head".into());
    }
    out[0] = 0x8a;
    out.extend(str_bytes(b"extra"));
    out.extend(nested_arrays(DEEP));
    Ok(out)
}

fn text_result(text: &str) -> Vec<u8> {
    let mut out = map(2);
    out.extend(str_bytes(b"success"));
    out.push(0xc3);
    out.extend(str_bytes(b"result"));
    out.extend(str_bytes(text.as_bytes()));
    out
}

fn nested_arrays(depth: usize) -> Vec<u8> {
    let mut out = vec![0x91; depth];
    out.push(0x00);
    out
}

fn map(len: u8) -> Vec<u8> {
    vec![0x80 | len]
}

/// A MessagePack str header and the bytes, valid UTF-8 or not.
fn str_bytes(bytes: &[u8]) -> Vec<u8> {
    let mut out = match bytes.len() {
        len @ 0..=31 => vec![0xa0 | len as u8],
        len @ 32..=255 => vec![0xd9, len as u8],
        len => {
            let mut head = vec![0xdb];
            head.extend_from_slice(&(len as u32).to_be_bytes());
            head
        }
    };
    out.extend_from_slice(bytes);
    out
}
