//! A deliberately misbehaving runner for the fault tests, driven by the `MISBEHAVE`
//! environment variable (the Nushell stress-plugin pattern):
//!
//! | `MISBEHAVE`         | behaviour                                                    |
//! |---------------------|--------------------------------------------------------------|
//! | `exit_before_hello` | exits with status 3 before connecting                        |
//! | `wrong_token`       | says hello with a wrong token                                |
//! | `no_token`          | says hello with an empty token                               |
//! | `not_hello`         | sends `plugin.health` as its first message                   |
//! | `bad_protocol`      | offers only protocol version 9.0.0                           |
//! | `garbage_first`     | sends a frame of random bytes first                          |
//! | `huge_frame`        | announces a 100 MiB frame                                    |
//! | `silent`            | connects and never says anything                             |
//! | `spoof`             | handshakes, then calls capabilities as another plugin and as |
//! |                     | itself without grants; prints the host's answers             |
//! | `huge_prefix`       | sends a 0xFFFFFFFF (4 GiB) length prefix first               |
//! | `truncated_hello`   | announces a 1000-byte frame, sends 10 bytes, then stalls     |
//! | `stale_token`       | says hello with the token of its previous launch (kept in    |
//! |                     | `MISBEHAVE_TOKEN_FILE`), prints the answer, then serves as a |
//! |                     | normal runner with its own token                             |
//! | `huge_prefix_later` | handshakes (plugin `examples.hostile`), then sends a 4 GiB   |
//! |                     | length prefix                                                |
//! | `truncated_later`   | handshakes, then stalls inside a 1000-byte frame             |
//! | `flood`             | handshakes, then sends `MISBEHAVE_FLOOD_COUNT` (default      |
//! |                     | 100 000) ungranted `cap.call`s plus a log batch every 64, as |
//! |                     | fast as possible, reading and counting the answers           |
//! | `flood_deaf`        | the same flood, but never reads the host's answers           |
//! | `deaf`              | handshakes with tool `ignored` (1 s timeout), then never     |
//! |                     | reads its socket again                                       |
//! | `crafted`           | handshakes with tools `bad_utf8`, `deep_result` and          |
//! |                     | `deep_extra_key`, answered with crafted MessagePack (a       |
//! |                     | non-UTF-8 string, 100 000 nested arrays in the result or in  |
//! |                     | an unknown envelope key); first sends a `cap.call` whose     |
//! |                     | args nest 100 000 arrays deep and prints the answer          |
//! | (unset)             | a normal runner whose tools misbehave on request             |
//!
//! Raw modes exit after reading the host's answer, printing it to stderr (which the host logs).
//! The handshaken hostile modes live in `src/misbehaving/` and print what they did the same way.
//! The normal runner's tools: `slow` (sleeps `ms` cooperatively), `hang` (blocks the runtime
//! thread: the runner stops answering anything), `stall` (blocks it for `ms`), `crash` (aborts the process mid-call),
//! `panic` (panics in the handler), `echo`, `big` (returns `bytes` bytes of text), `depth`
//! (reports how deeply its `value` argument nests), and `connect_again` (opens a second
//! connection with this launch's token and reports the host's answer). With
//! `MISBEHAVE_FAIL_LOAD=1` the second plugin, `examples.fails_on_load`, fails in `on_load`
//! while the first keeps working. With `RECORD_CALLS=FILE`, `echo` and `slow` append each
//! call id they run to FILE (`src/record_calls.rs`). With `MISBEHAVE_START_DELAY_MS=N` it
//! waits N ms before connecting, so it registers after runners started with it.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::sync::OnceLock;
use std::time::Duration;

use maitool_protocol::wire::methods::{HelloPayload, HelloResponsePayload, names};
use maitool_protocol::wire::{
    EmptyPayload, Envelope, decode_header, decode_payload, encode_envelope,
};
use maitool_sdk::prelude::*;

#[path = "../misbehaving/hostile.rs"]
mod hostile;
#[path = "../record_calls.rs"]
mod record_calls;
#[path = "../misbehaving/session.rs"]
mod session;

static LAUNCH: OnceLock<(String, String)> = OnceLock::new();
/// What the token descriptor was at start (`pipe:[INODE]`), for the `token_fd` tool.
static TOKEN_PIPE: OnceLock<String> = OnceLock::new();

/// The token descriptor's number, from the launch environment.
fn token_fd() -> String {
    std::env::var("MAITOOL_SESSION_TOKEN_FD").unwrap_or_default()
}

/// Reads this launch's token from the pipe the host handed over, as a hostile runner that
/// wants it for its own connections would, and writes it back into the same pipe (through a
/// second opening of it), so that the SDK finds it there when this runner serves.
fn peek_token() -> String {
    let path = format!("/dev/fd/{}", token_fd());
    let _ = TOKEN_PIPE.set(
        std::fs::read_link(&path)
            .map(|link| link.display().to_string())
            .unwrap_or_default(),
    );
    let mut token = String::new();
    let Ok(mut pipe) = std::fs::File::open(&path) else {
        return token;
    };
    let _ = pipe.read_to_string(&mut token);
    if let Ok(mut again) = std::fs::OpenOptions::new().write(true).open(&path) {
        let _ = again.write_all(token.as_bytes());
    }
    token
}

fn main() {
    let address = std::env::var("MAITOOL_IPC_ADDRESS").unwrap_or_default();
    let token = peek_token();
    let _ = LAUNCH.set((address.clone(), token.clone()));
    let mode = std::env::var("MISBEHAVE").unwrap_or_default();
    match mode.as_str() {
        "" => {
            // The tests that check where the token may and may not be need to know it.
            if let Ok(path) = std::env::var("MISBEHAVE_TOKEN_FILE") {
                let _ = std::fs::write(path, &token);
            }
            // A runner slow to start, to register after the runners configured behind it.
            if let Some(ms) = std::env::var("MISBEHAVE_START_DELAY_MS")
                .ok()
                .and_then(|ms| ms.parse().ok())
            {
                std::thread::sleep(Duration::from_millis(ms));
            }
            serve()
        }
        "exit_before_hello" => std::process::exit(3),
        "spoof" => spoof_session(&address, &token),
        "stale_token" => {
            stale_token(&address, &token);
            serve()
        }
        raw => {
            if let Some(outcome) = hostile::run(raw, &address, &token) {
                eprintln!("misbehaving runner ({raw}): {outcome}");
                std::process::exit(4);
            }
            let answer = raw_session(&address, &token, raw);
            eprintln!("misbehaving runner ({raw}): host answered: {answer}");
            std::process::exit(4);
        }
    }
}

/// Hello with the given token and protocol versions; returns the raw bytes.
fn hello(token: &str, versions: &[&str]) -> Vec<u8> {
    let payload = HelloPayload {
        runner_id: "misbehaving".into(),
        sdk_version: "1.0.0".into(),
        session_token: token.into(),
        protocol_versions: versions.iter().map(|v| (*v).to_owned()).collect(),
        pid: std::process::id(),
        reads_context: false,
        ..Default::default()
    };
    encode_envelope(&Envelope::request(1, names::HELLO, "", 10_000, payload))
        .expect("encode hello")
        .to_vec()
}

fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = (body.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(body);
    out
}

/// Runs one raw misbehaviour and describes the host's reaction.
fn raw_session(address: &str, token: &str, mode: &str) -> String {
    let mut stream = match UnixStream::connect(address) {
        Ok(stream) => stream,
        Err(err) => return format!("cannot connect: {err}"),
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(15)));
    let bytes = match mode {
        "wrong_token" => frame(&hello("not-the-token", &["1.0.0"])),
        "no_token" => frame(&hello("", &["1.0.0"])),
        "bad_protocol" => frame(&hello(token, &["9.0.0"])),
        "not_hello" => {
            let body = encode_envelope(&Envelope::request(
                1,
                names::HEALTH,
                "",
                1000,
                EmptyPayload {},
            ))
            .expect("encode");
            frame(&body)
        }
        "garbage_first" => frame(&[0xc1, 0xff, 0x00, 0x13, 0x37, 0xde, 0xad, 0xbe, 0xef]),
        "huge_frame" => {
            let mut bytes = (100u32 * 1024 * 1024).to_be_bytes().to_vec();
            bytes.extend_from_slice(&[0x80; 64]);
            bytes
        }
        "huge_prefix" => {
            let mut bytes = u32::MAX.to_be_bytes().to_vec();
            bytes.extend_from_slice(&[0x80; 64]);
            bytes
        }
        // The rest of the frame never comes; the answer read below waits for the host to cut
        // the connection.
        "truncated_hello" => {
            let mut bytes = 1000u32.to_be_bytes().to_vec();
            bytes.extend_from_slice(&frame(&hello(token, &["1.0.0"]))[4..14]);
            bytes
        }
        "silent" => {
            std::thread::sleep(Duration::from_secs(3600));
            Vec::new()
        }
        other => return format!("unknown MISBEHAVE mode {other}"),
    };
    if let Err(err) = stream.write_all(&bytes) {
        return format!("write failed: {err}");
    }
    read_answer(&mut stream)
}

/// Presents the token a previous launch left in `MISBEHAVE_TOKEN_FILE` (if any) and prints the
/// host's answer, then records this launch's token for the next launch.
fn stale_token(address: &str, token: &str) {
    let Ok(path) = std::env::var("MISBEHAVE_TOKEN_FILE") else {
        return;
    };
    if let Ok(stale) = std::fs::read_to_string(&path)
        && stale != token
    {
        let answer = match UnixStream::connect(address) {
            Ok(mut stream) => {
                let _ = stream.set_read_timeout(Some(Duration::from_secs(15)));
                match stream.write_all(&frame(&hello(&stale, &["1.0.0"]))) {
                    Ok(()) => read_answer(&mut stream),
                    Err(err) => format!("write failed: {err}"),
                }
            }
            Err(err) => format!("cannot connect: {err}"),
        };
        eprintln!("misbehaving runner (stale_token): host answered: {answer}");
    }
    if let Err(err) = std::fs::write(&path, token) {
        eprintln!("misbehaving runner (stale_token): cannot record the token: {err}");
    }
}

fn read_answer(stream: &mut UnixStream) -> String {
    let mut len = [0u8; 4];
    if let Err(err) = stream.read_exact(&mut len) {
        return format!("connection closed without an answer ({err})");
    }
    let mut body = vec![0u8; u32::from_be_bytes(len) as usize];
    if let Err(err) = stream.read_exact(&mut body) {
        return format!("truncated answer ({err})");
    }
    match decode_header(&body) {
        Ok(header) => match header.error {
            Some(error) => format!("error {}: {}", error.code.as_str(), error.message),
            None => match decode_payload::<HelloResponsePayload>(&body) {
                Ok(answer) if answer.accepted => "accepted".to_owned(),
                Ok(answer) => format!("rejected: {}", answer.reason),
                Err(err) => format!("undecodable answer: {err}"),
            },
        },
        Err(err) => format!("undecodable answer: {err}"),
    }
}

/// Handshakes, registers `examples.spoofer`, reports ready, then tries capabilities as
/// `examples.notes` (another runner's plugin) and as itself (no grants).
fn spoof_session(address: &str, token: &str) {
    use maitool_protocol::wire::methods::{
        CapabilityRequestPayload, ComponentDeclaration, RegisterComponentsPayload,
        RunnerReadyPayload,
    };
    let mut stream = match UnixStream::connect(address) {
        Ok(stream) => stream,
        Err(err) => {
            eprintln!("spoof: cannot connect: {err}");
            std::process::exit(4);
        }
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(15)));
    let mut lines = Lines;
    let send = |stream: &mut UnixStream,
                id: u64,
                method: &str,
                plugin: &str,
                payload: &dyn erased::Encode|
     -> String {
        let body = payload.encode(id, method, plugin);
        if let Err(err) = stream.write_all(&frame(&body)) {
            return format!("write failed: {err}");
        }
        read_response(stream, id)
    };
    lines.push(format!(
        "hello: {}",
        send(
            &mut stream,
            1,
            names::HELLO,
            "",
            &HelloPayload {
                runner_id: "spoofer".into(),
                sdk_version: "1.0.0".into(),
                session_token: token.into(),
                protocol_versions: vec!["1.0.0".into()],
                pid: std::process::id(),
                reads_context: false,
                ..Default::default()
            }
        )
    ));
    let decl = ComponentDeclaration {
        name: "spoofed_tool".into(),
        component_type: "TOOL".into(),
        plugin_id: "examples.spoofer".into(),
        ..ComponentDeclaration::default()
    };
    let register = RegisterComponentsPayload {
        plugin_id: "examples.spoofer".into(),
        components: vec![decl],
        ..RegisterComponentsPayload::default()
    };
    lines.push(format!(
        "register: {}",
        send(
            &mut stream,
            2,
            names::REGISTER_COMPONENTS,
            "examples.spoofer",
            &register
        )
    ));
    let ready = RunnerReadyPayload {
        loaded_plugins: vec!["examples.spoofer".into()],
        ..RunnerReadyPayload::default()
    };
    lines.push(format!(
        "ready: {}",
        send(&mut stream, 3, names::READY, "", &ready)
    ));
    let kv_get = CapabilityRequestPayload {
        capability: "kv.get".into(),
        args: [("key".to_owned(), "secret".into())].into_iter().collect(),
    };
    lines.push(format!(
        "as examples.notes: {}",
        send(&mut stream, 4, names::CAP_CALL, "examples.notes", &kv_get)
    ));
    lines.push(format!(
        "as itself: {}",
        send(&mut stream, 5, names::CAP_CALL, "examples.spoofer", &kv_get)
    ));
    // Stay connected (unresponsive to health checks, which the host will notice eventually).
    std::thread::sleep(Duration::from_secs(3600));
}

/// Prints each outcome at once, so the host logs it while the session continues.
struct Lines;

impl Lines {
    fn push(&mut self, line: String) {
        eprintln!("spoof: {line}");
    }
}

/// Reads frames until the response to `id`, answering nothing else (health checks of the host
/// are ignored: this raw client only wants its answers).
fn read_response(stream: &mut UnixStream, id: u64) -> String {
    loop {
        let mut len = [0u8; 4];
        if let Err(err) = stream.read_exact(&mut len) {
            return format!("connection closed ({err})");
        }
        let mut body = vec![0u8; u32::from_be_bytes(len) as usize];
        if let Err(err) = stream.read_exact(&mut body) {
            return format!("truncated ({err})");
        }
        let Ok(header) = decode_header(&body) else {
            return "undecodable".into();
        };
        if header.request_id != id
            || header.message_type != maitool_protocol::wire::MessageType::Response
        {
            continue;
        }
        return match header.error {
            Some(error) => format!("error {}: {}", error.code.as_str(), error.message),
            None => "ok".into(),
        };
    }
}

/// Object-safe encoding of a request envelope with any payload type.
mod erased {
    use maitool_protocol::wire::{Envelope, encode_envelope};
    use maitool_sdk::serde::Serialize;

    pub trait Encode {
        fn encode(&self, id: u64, method: &str, plugin: &str) -> Vec<u8>;
    }

    impl<T: Serialize> Encode for T {
        fn encode(&self, id: u64, method: &str, plugin: &str) -> Vec<u8> {
            encode_envelope(&Envelope::request(id, method, plugin, 10_000, self))
                .expect("encode")
                .to_vec()
        }
    }
}

/// Arguments of `slow`.
#[maitool_sdk::args]
struct SlowArgs {
    /// How long to sleep, in milliseconds.
    ms: u64,
}

/// Arguments of `echo`.
#[maitool_sdk::args]
struct EchoArgs {
    /// Text to return.
    text: String,
}

/// Arguments of `big`.
#[maitool_sdk::args]
struct BigArgs {
    /// How many bytes of text to return.
    bytes: usize,
}

/// Arguments of `depth`.
#[maitool_sdk::args]
struct DepthArgs {
    /// Any JSON value.
    value: maitool_sdk::Value,
}

/// How many arrays and objects nest in `value` (a scalar is 0), counted without recursion.
fn nesting(value: &maitool_sdk::Value) -> usize {
    use maitool_sdk::Value;
    let mut deepest = 0;
    let mut pending = vec![(value, 0)];
    while let Some((value, depth)) = pending.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match value {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(map) => Box::new(map.values()),
            _ => continue,
        };
        deepest = deepest.max(depth + 1);
        pending.extend(children.map(|child| (child, depth + 1)));
    }
    deepest
}

/// No arguments.
#[maitool_sdk::args]
struct NoArgs {}

fn serve() {
    let misbehaving = Plugin::new("examples.misbehaving", "1.0.0")
        .description("Tools that crash, hang, panic or sleep on request.")
        .tool(Tool::new(
            "slow",
            "Sleep cooperatively, then answer.",
            |a: SlowArgs, ctx: ToolContext| async move {
                record_calls::ran(ctx.call_id());
                tokio_sleep(a.ms).await;
                Ok(ToolOutput::text(format!("slept {} ms", a.ms)))
            },
        ))
        .tool(Tool::new(
            "hang",
            "Block the runner's only thread forever.",
            |_a: NoArgs, _ctx: ToolContext| async move {
                std::thread::sleep(Duration::from_secs(3600));
                Ok(ToolOutput::text("unreachable"))
            },
        ))
        .tool(Tool::new(
            "crash",
            "Abort the runner process mid-call.",
            |_a: NoArgs, _ctx: ToolContext| async move {
                std::process::abort();
                #[allow(unreachable_code)]
                Ok(ToolOutput::text("unreachable"))
            },
        ))
        .tool(Tool::new(
            "panic",
            "Panic inside the handler.",
            |_a: NoArgs, _ctx: ToolContext| async move {
                if std::env::var("NEVER_SET_VARIABLE").is_err() {
                    panic!("deliberate panic in a handler");
                }
                Ok(ToolOutput::text("unreachable"))
            },
        ))
        .tool(Tool::new(
            "echo",
            "Return the text.",
            |a: EchoArgs, ctx: ToolContext| async move {
                record_calls::ran(ctx.call_id());
                Ok(ToolOutput::text(a.text))
            },
        ))
        .tool(Tool::new(
            "stall",
            "Block the runner's only thread for `ms` milliseconds, then answer.",
            |a: SlowArgs, _ctx: ToolContext| async move {
                std::thread::sleep(Duration::from_millis(a.ms));
                Ok(ToolOutput::text(format!("stalled {} ms", a.ms)))
            },
        ))
        .tool(Tool::new(
            "big",
            "Return `bytes` bytes of text.",
            |a: BigArgs, _ctx: ToolContext| async move { Ok(ToolOutput::text("x".repeat(a.bytes))) },
        ))
        .tool(Tool::new(
            "depth",
            "Report how deeply the value argument nests.",
            |a: DepthArgs, _ctx: ToolContext| async move {
                Ok(ToolOutput::text(nesting(&a.value).to_string()))
            },
        ))
        .tool(
            Tool::new(
                "group_only",
                "Only offered in group chats.",
                |_a: NoArgs, _ctx: ToolContext| async move { Ok(ToolOutput::text("group")) },
            )
            .chat_scope(ChatScope::Group),
        )
        .tool(
            Tool::new(
                "private_only",
                "Only offered in private chats.",
                |_a: NoArgs, _ctx: ToolContext| async move { Ok(ToolOutput::text("private")) },
            )
            .chat_scope(ChatScope::Private),
        )
        .tool(
            Tool::new(
                "vip_only",
                "Only offered in the vip session or group.",
                |_a: NoArgs, _ctx: ToolContext| async move { Ok(ToolOutput::text("vip")) },
            )
            .allowed_sessions(["vip-session", "qq:vip-group"]),
        )
        .tool(
            Tool::new(
                "hang_with_timeout",
                "Blocks the runner; the host gives up after 500 ms.",
                |_a: NoArgs, _ctx: ToolContext| async move {
                    std::thread::sleep(Duration::from_secs(3600));
                    Ok(ToolOutput::text("unreachable"))
                },
            )
            .timeout(Duration::from_millis(500)),
        )
        .tool(Tool::new(
            "token_fd",
            "What plugin code finds at the session token's descriptor: the pipe it was at start, and what it is now.",
            |_a: NoArgs, _ctx: ToolContext| async move {
                let now = std::fs::read_link(format!("/dev/fd/{}", token_fd()))
                    .map(|link| link.display().to_string())
                    .unwrap_or_else(|_| "closed".to_owned());
                Ok(ToolOutput::structured(json!({
                    "fd": token_fd(),
                    "at_start": TOKEN_PIPE.get().cloned().unwrap_or_default(),
                    "now": now,
                })))
            },
        ))
        .tool(Tool::new(
            "connect_again",
            "Open a second connection with this launch's token.",
            |_a: NoArgs, _ctx: ToolContext| async move {
                let (address, token) = LAUNCH.get().cloned().unwrap_or_default();
                let answer = std::thread::spawn(move || {
                    let mut stream = UnixStream::connect(&address).map_err(|e| e.to_string())?;
                    stream
                        .set_read_timeout(Some(Duration::from_secs(15)))
                        .map_err(|e| e.to_string())?;
                    stream
                        .write_all(&frame(&hello(&token, &["1.0.0"])))
                        .map_err(|e| e.to_string())?;
                    Ok::<_, String>(read_answer(&mut stream))
                })
                .join()
                .map_err(|_| ToolError::new("probe thread panicked"))?
                .map_err(ToolError::new)?;
                Ok(ToolOutput::text(answer))
            },
        ));
    let fails_on_load = Plugin::new("examples.fails_on_load", "1.0.0")
        .description("Fails in on_load when MISBEHAVE_FAIL_LOAD=1.")
        .tool(Tool::new(
            "never_listed",
            "Only exposed when loading succeeds.",
            |_a: NoArgs, _ctx: ToolContext| async move { Ok(ToolOutput::text("loaded after all")) },
        ))
        .on_load(|_ctx| async move {
            if std::env::var("MISBEHAVE_FAIL_LOAD").as_deref() == Ok("1") {
                return Err(PluginError::new("deliberate on_load failure"));
            }
            Ok(())
        });
    maitool_sdk::run([misbehaving, fails_on_load]);
}

/// Sleeps on the runner's async runtime (the SDK runs handlers on tokio).
async fn tokio_sleep(ms: u64) {
    maitool_sdk::time::sleep(Duration::from_millis(ms)).await;
}
