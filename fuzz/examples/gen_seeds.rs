//! Writes the committed seed corpus, `fuzz/corpus/<target>/<name>`: real frames and payloads
//! made by the protocol crate's own encoders, real configuration and manifest text, and real
//! model answers. Run from anywhere with
//! `cargo run --manifest-path fuzz/Cargo.toml --example gen_seeds`; the output is
//! deterministic, so regenerating leaves unchanged seeds unchanged.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use maitool_fuzz::answers::{Call, model_answer};
use maitool_fuzz::frames::{frame_with_payload, length_prefixed};
use maitool_fuzz::payload_table::{seed, selector};
use maitool_fuzz::round_trip::Format;
use maitool_protocol::JsonObject;
use maitool_host::llm::ModelApi;
use maitool_protocol::ToolDefinition;
use maitool_protocol::model::{
    BinaryData, ContentType, ProviderType, ToolAnnotation, ToolAvailabilityContext,
    ToolContentItem, ToolExecutionContext, ToolExecutionResult, ToolIcon, ToolInvocation, ToolSpec,
};
use maitool_protocol::wire::methods::{self, *};
use maitool_protocol::wire::{
    CANCEL_METHOD, CancelPayload, EmptyPayload, Envelope, ErrorBody, ErrorCode, MessageType,
    decode_header, encode_envelope, encode_response_raw,
};
use serde::Serialize;
use serde_json::{Value, json};

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut corpus = Corpus { root, written: 0 };
    let frames = frames();
    frame_decoder(&mut corpus, &frames);
    for (name, frame) in &frames {
        corpus.write("envelope", name, frame);
    }
    payloads(&mut corpus);
    config(&mut corpus);
    manifest(&mut corpus);
    tool_calls(&mut corpus);
    println!(
        "wrote {} seeds under {}",
        corpus.written,
        corpus.root.display()
    );
}

struct Corpus {
    root: PathBuf,
    written: usize,
}

impl Corpus {
    fn write(&mut self, target: &str, name: &str, bytes: &[u8]) {
        let dir = self.root.join(target);
        std::fs::create_dir_all(&dir).expect("create the corpus folder");
        std::fs::write(dir.join(name), bytes).expect("write a seed");
        self.written += 1;
    }
}

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(object) => object,
        other => panic!("not an object: {other}"),
    }
}

fn weather_schema() -> JsonObject {
    object(json!({
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name"},
            "days": {"type": ["integer", "null"], "minimum": 1, "maximum": 7},
            "units": {"$ref": "#/$defs/Units"}
        },
        "required": ["city"],
        "$defs": {"Units": {"type": "string", "enum": ["metric", "imperial"]}},
        "additionalProperties": false
    }))
}

fn context() -> ToolExecutionContext {
    ToolExecutionContext {
        session_id: "qq:group:123".into(),
        stream_id: "stream-9f2".into(),
        reasoning: "the user asked for the weather".into(),
        is_group_chat: Some(true),
        group_id: "123".into(),
        user_id: "42".into(),
        platform: "qq".into(),
        metadata: object(json!({"anchor_message": {"id": "m1", "text": "weather in Oslo?"}})),
    }
}

fn rich_result() -> ToolExecutionResult {
    ToolExecutionResult::success("examples.media.draw", "drew a square")
        .with_item(ToolContentItem::image(
            vec![0x89, b'P', b'N', b'G', 0, 1, 2],
            "image/png",
        ))
        .with_item(ToolContentItem::resource_link("file:///tmp/a.txt", "a.txt"))
        .with_item(ToolContentItem::resource_text(
            "memo://1",
            "remember the milk",
        ))
        .with_structured(json!({"width": 2, "height": 2.5, "tags": ["a", null]}))
        .with_metadata("pause_execution", false)
        .with_stop_after_execution()
}

fn component() -> ComponentDeclaration {
    ComponentDeclaration {
        name: "roll".into(),
        component_type: "TOOL".into(),
        plugin_id: "examples.dice".into(),
        chat_scope: "all".into(),
        allowed_session: vec!["qq:123".into()],
        metadata: object(json!({
            "description": "Rolls dice.",
            "parameters_raw": {"type": "object", "properties": {"sides": {"type": "integer"}}},
            "timeout_ms": 5000,
            "visibility": "visible",
            "platforms": ["qq"]
        })),
    }
}

fn spec() -> ToolSpec {
    let mut spec = ToolSpec::new("get_weather", "Current weather.")
        .with_parameters(weather_schema())
        .with_provider("examples.weather", ProviderType::Plugin)
        .with_metadata("visibility", "deferred");
    spec.title = "Weather".into();
    spec.icons = vec![ToolIcon {
        src: "data:image/png;base64,AAAA".into(),
        mime_type: "image/png".into(),
        sizes: vec!["48x48".into()],
    }];
    spec.annotation = Some(annotation());
    spec
}

fn annotation() -> ToolAnnotation {
    ToolAnnotation {
        audience: vec!["assistant".into()],
        priority: Some(0.5),
        title: "Weather".into(),
        read_only: Some(true),
        destructive: Some(false),
        idempotent: None,
        open_world: Some(true),
        metadata: JsonObject::new(),
    }
}

fn hello() -> HelloPayload {
    HelloPayload {
        runner_id: "runner-7f3a".into(),
        sdk_version: "0.1.0".into(),
        session_token: "c2VjcmV0".into(),
        protocol_versions: vec!["1.0.0".into()],
        pid: 4242,
        reads_context: true,
    ..Default::default()
}
}

fn request<P: Serialize>(id: u64, method: &str, payload: P) -> Vec<u8> {
    let mut envelope = Envelope::request(id, method, "examples.dice", 30_000, payload);
    envelope.timestamp_ms = 1_733_000_000_000 + id;
    encode_envelope(&envelope).expect("encode").to_vec()
}

/// Real frame bodies, as the host and runners send them.
fn frames() -> Vec<(&'static str, Vec<u8>)> {
    let invoke = InvokePayload {
        component_name: "roll".into(),
        args: object(json!({"sides": 6, "count": 2, "stream_id": "stream-9f2"})),
        context: Some(context()),
        call_id: "call_1".into(),
    };
    let invoke_frame = request(3, names::INVOKE_TOOL, &invoke);
    let invoke_header = decode_header(&invoke_frame).expect("own frame");
    let result = InvokeResultPayload {
        success: true,
        result: None,
        tool_result: Some(rich_result()),
    };
    let mut response = Envelope::response_to(&invoke_header, &result);
    response.timestamp_ms = 1_733_000_000_100;
    let raw_result = rmp_serde::to_vec_named(&InvokeResultPayload {
        success: true,
        result: Some(json!({"success": true, "content": "rolled 4"})),
        tool_result: None,
    })
    .expect("encode");
    let mut error = Envelope::error_response_to(
        &invoke_header,
        ErrorBody::new(ErrorCode::default(), "tool roll timed out after 5000 ms"),
    );
    error.timestamp_ms = 1_733_000_000_200;
    let mut log = Envelope::broadcast(
        9,
        names::LOG_BATCH,
        "",
        LogBatchPayload {
            entries: vec![LogEntry {
                timestamp_ms: 1_733_000_000_300,
                level: 20,
                logger_name: "plugin.examples.dice".into(),
                message: "rolled 4 sides=6".into(),
                exception_text: String::new(),
                plugin_id: "examples.dice".into(),
            }],
        },
    );
    log.timestamp_ms = 1_733_000_000_300;
    let mut cancel = Envelope::broadcast(10, CANCEL_METHOD, "", CancelPayload { request_id: 3 });
    cancel.timestamp_ms = 1_733_000_000_400;
    let register = RegisterComponentsPayload {
        plugin_id: "examples.dice".into(),
        plugin_version: "1.0.0".into(),
        plugin_type: "extension".into(),
        components: vec![component()],
        capabilities_required: vec!["send.text".into()],
        name: "Dice".into(),
        description: "Rolls dice.".into(),
        default_config: object(json!({"max_dice": 50})),
        config_schema: object(json!({"type": "object"})),
        config_error: String::new(),
    };
    vec![
        ("hello_request", request(1, names::HELLO, hello())),
        (
            "register_components",
            request(2, names::REGISTER_COMPONENTS, &register),
        ),
        ("invoke_request", invoke_frame.clone()),
        (
            "invoke_response",
            encode_envelope(&response).expect("encode").to_vec(),
        ),
        (
            "invoke_response_raw",
            pin_timestamp(
                encode_response_raw(&invoke_header, &raw_result)
                    .expect("encode")
                    .to_vec(),
            ),
        ),
        (
            "error_response",
            encode_envelope(&error).expect("encode").to_vec(),
        ),
        (
            "log_batch_broadcast",
            encode_envelope(&log).expect("encode").to_vec(),
        ),
        (
            "cancel_broadcast",
            encode_envelope(&cancel).expect("encode").to_vec(),
        ),
        (
            "cap_call_request",
            request(
                4,
                names::CAP_CALL,
                CapabilityRequestPayload {
                    capability: "kv.set".into(),
                    args: object(json!({"key": "notes/1", "value": "milk"})),
                },
            ),
        ),
        (
            "shutdown_request",
            request(5, names::SHUTDOWN, ShutdownPayload::default()),
        ),
        ("health_request", request(6, names::HEALTH, EmptyPayload {})),
        // Hand-laid frames, MaiBot style: the payload between other keys, and nil.
        (
            "payload_in_the_middle",
            frame_with_payload(&rmp_serde::to_vec_named(&invoke).expect("encode")),
        ),
        ("nil_payload", frame_with_payload(&[0xc0])),
        // Integer keys, which serde reads as field indices (`1` is `request_id` here).
        ("integer_keys", integer_keys_frame()),
        // A string `request_id` and the message type under `2`, `RawHeader`'s index for it:
        // the header decodes, recovery finds the id and no type (CI's fuzz run found this).
        ("integer_key_message_type", integer_key_message_type_frame()),
        // A payload nested past the depth limit, then a byte after the map: the walks ignore
        // the byte as serde does, where serde's decode of the whole frame stops at the limit.
        (
            "deep_payload_trailing_byte",
            deep_payload_trailing_byte_frame(),
        ),
        ("deep_payload_in_the_middle_trailing_byte", {
            let mut frame = frame_with_payload(&[0x91; 200]);
            frame.push(0xc0);
            frame
        }),
    ]
}

/// `encode_response_raw` stamps the current time; a fixed one keeps the seed the same on
/// every run. The stamp is a `uint 64` (marker 0xcf) right after the `timestamp_ms` key.
fn pin_timestamp(mut frame: Vec<u8>) -> Vec<u8> {
    let key = b"\xactimestamp_ms";
    let at = frame
        .windows(key.len())
        .position(|window| window == key)
        .expect("a response has a timestamp")
        + key.len();
    assert_eq!(frame[at], 0xcf, "the timestamp is a uint 64");
    frame[at + 1..at + 9].copy_from_slice(&1_733_000_000_150u64.to_be_bytes());
    frame
}

/// `{1: 7, "message_type": "request", 5: {}}`: not what any peer should send, but serde
/// takes integer keys as field indices, so it decodes; recovery reads string keys only.
fn integer_keys_frame() -> Vec<u8> {
    let mut frame = vec![0x83, 0x01, 0x07];
    rmp::encode::write_str(&mut frame, "message_type").expect("write to a Vec");
    rmp::encode::write_str(&mut frame, "request").expect("write to a Vec");
    frame.extend([0x05, 0x80]);
    frame
}

/// `{"request_id": 7, 2: "request"}`.
fn integer_key_message_type_frame() -> Vec<u8> {
    let mut frame = vec![0x82];
    rmp::encode::write_str(&mut frame, "request_id").expect("write to a Vec");
    frame.extend([0x07, 0x02]);
    rmp::encode::write_str(&mut frame, "request").expect("write to a Vec");
    frame
}

/// `{"request_id": 7, "message_type": "request", "payload": [[[…nil…]]]}`, 200 arrays deep,
/// then a nil after the map.
fn deep_payload_trailing_byte_frame() -> Vec<u8> {
    let mut frame = vec![0x83];
    rmp::encode::write_str(&mut frame, "request_id").expect("write to a Vec");
    frame.push(0x07);
    rmp::encode::write_str(&mut frame, "message_type").expect("write to a Vec");
    rmp::encode::write_str(&mut frame, "request").expect("write to a Vec");
    rmp::encode::write_str(&mut frame, "payload").expect("write to a Vec");
    frame.extend(std::iter::repeat_n(0x91, 200));
    frame.extend([0xc0, 0xc0]);
    frame
}

/// Input: split count, chunk sizes, then a stream of length-prefixed frames.
fn frame_decoder(corpus: &mut Corpus, frames: &[(&str, Vec<u8>)]) {
    let stream: Vec<u8> = frames
        .iter()
        .flat_map(|(_, f)| length_prefixed(f))
        .collect();
    let one = length_prefixed(&frames[0].1);
    let seed = |head: &[u8], body: &[u8]| [head, body].concat();
    corpus.write("frame_decoder", "one_frame", &seed(&[0], &one));
    corpus.write("frame_decoder", "all_frames_whole", &seed(&[0], &stream));
    corpus.write(
        "frame_decoder",
        "all_frames_dribbled",
        &seed(&[3, 1, 7, 200], &stream),
    );
    corpus.write("frame_decoder", "byte_by_byte", &seed(&[1, 1], &one));
    corpus.write(
        "frame_decoder",
        "truncated",
        &seed(&[0], &one[..one.len() - 5]),
    );
    // Once reported as a clean end: the stream stops right after a length prefix.
    corpus.write(
        "frame_decoder",
        "ends_after_prefix",
        &seed(&[0], &[0, 0, 0, 5]),
    );
    corpus.write(
        "frame_decoder",
        "empty_frame_then_frame",
        &seed(&[0], &[&[0, 0, 0, 0][..], &one].concat()),
    );
    // 16 MiB + 1 announced: refused from the prefix.
    corpus.write(
        "frame_decoder",
        "oversized_prefix",
        &seed(&[0], &[0x01, 0x00, 0x00, 0x01, 0x80]),
    );
    // 65 bytes: over the small limit the target also decodes with.
    let mut over_small = vec![0, 0, 0, 65];
    over_small.extend(std::iter::repeat_n(0xa0, 65));
    corpus.write(
        "frame_decoder",
        "over_small_limit",
        &seed(&[0], &over_small),
    );
}

fn payloads(corpus: &mut Corpus) {
    fn both<T: Serialize>(corpus: &mut Corpus, name: &str, value: &T) {
        corpus.write(
            "payloads",
            &format!("{name}.msgpack"),
            &seed(Format::MsgPack, value),
        );
        corpus.write(
            "payloads",
            &format!("{name}.json"),
            &seed(Format::Json, value),
        );
    }
    both(corpus, "hello", &hello());
    let mut plugins = BTreeMap::new();
    let bootstrap = PluginBootstrap {
        enabled: true,
        config: object(json!({"max_dice": 50, "nested": {"a": [1, 2.5, "x"]}})),
        config_version: "3".into(),
        capabilities: vec!["kv.*".into()],
        data_dir: "/var/lib/maitool/examples.dice".into(),
    };
    plugins.insert("examples.dice".to_owned(), bootstrap.clone());
    both(
        corpus,
        "hello_response",
        &HelloResponsePayload {
            accepted: true,
            host_version: "0.1.0".into(),
            reason: String::new(),
            protocol_version: "1.0.0".into(),
            plugins,
        },
    );
    both(corpus, "plugin_bootstrap", &bootstrap);
    both(corpus, "component", &component());
    both(
        corpus,
        "register_components",
        &RegisterComponentsPayload {
            plugin_id: "examples.dice".into(),
            components: vec![component()],
            ..Default::default()
        },
    );
    both(
        corpus,
        "register_response",
        &RegisterComponentsResponse {
            accepted: false,
            plugin_id: "examples.dice".into(),
            registered_components: vec!["examples.dice.roll".into()],
            reason: "duplicate component roll".into(),
        },
    );
    let mut reasons = BTreeMap::new();
    reasons.insert(
        "examples.broken".to_owned(),
        "panicked in on_load".to_owned(),
    );
    both(
        corpus,
        "runner_ready",
        &RunnerReadyPayload {
            loaded_plugins: vec!["examples.dice".into()],
            failed_plugins: vec!["examples.broken".into()],
            failed_plugin_reasons: reasons,
            inactive_plugins: vec![],
        },
    );
    both(
        corpus,
        "invoke",
        &InvokePayload {
            component_name: "roll".into(),
            args: object(json!({"sides": 6})),
            context: Some(context()),
            call_id: "call_1".into(),
        },
    );
    both(
        corpus,
        "invoke_result_tool",
        &InvokeResultPayload {
            success: true,
            result: None,
            tool_result: Some(rich_result()),
        },
    );
    both(
        corpus,
        "invoke_result_maibot",
        &InvokeResultPayload {
            success: false,
            result: Some(json!([false, "no such city"])),
            tool_result: None,
        },
    );
    both(
        corpus,
        "health",
        &HealthPayload {
            healthy: true,
            loaded_plugins: vec!["examples.dice".into()],
            uptime_ms: 12_345,
            in_flight: 2,
        },
    );
    both(corpus, "shutdown", &ShutdownPayload::default());
    both(
        corpus,
        "ack",
        &AckPayload {
            acknowledged: true,
            in_flight: 1,
        },
    );
    both(
        corpus,
        "config_updated",
        &ConfigUpdatedPayload {
            plugin_id: "examples.dice".into(),
            config_scope: "self".into(),
            config_version: "4".into(),
            config_data: object(json!({"max_dice": 10})),
        },
    );
    both(
        corpus,
        "config_updated_response",
        &ConfigUpdatedResponse {
            accepted: false,
            reason: "max_dice must be positive".into(),
            ..ConfigUpdatedResponse::default()
        },
    );
    both(
        corpus,
        "cap_request",
        &CapabilityRequestPayload {
            capability: "send.text".into(),
            args: object(json!({"stream_id": "stream-9f2", "text": "hi"})),
        },
    );
    both(
        corpus,
        "cap_response",
        &CapabilityResponsePayload {
            success: true,
            result: json!({"message_id": "m2"}),
        },
    );
    let entry = LogEntry {
        timestamp_ms: 1_733_000_000_300,
        level: 40,
        logger_name: "plugin.examples.dice".into(),
        message: "failed".into(),
        exception_text: "Traceback: boom".into(),
        plugin_id: "examples.dice".into(),
    };
    both(corpus, "log_entry", &entry);
    both(
        corpus,
        "log_batch",
        &methods::LogBatchPayload {
            entries: vec![entry],
        },
    );
    both(corpus, "cancel", &CancelPayload { request_id: 3 });
    both(corpus, "empty", &EmptyPayload {});
    both(
        corpus,
        "error_body",
        &ErrorBody {
            code: ErrorCode::default(),
            message: "no such tool".into(),
            details: object(json!({"tool": "roll"})),
        },
    );
    both(corpus, "error_code", &ErrorCode::default());
    both(corpus, "message_type", &MessageType::Broadcast);
    both(corpus, "tool_spec", &spec());
    let invocation = ToolInvocation {
        tool_name: "get_weather".into(),
        arguments: object(json!({"city": "Oslo", "days": 3})),
        call_id: "call_1".into(),
        session_id: "qq:group:123".into(),
        stream_id: "stream-9f2".into(),
        reasoning: "asked".into(),
        metadata: object(json!({"thought_signature": "c2ln"})),
    };
    both(corpus, "tool_invocation", &invocation);
    both(corpus, "tool_result", &rich_result());
    both(corpus, "execution_context", &context());
    both(
        corpus,
        "availability_context",
        &ToolAvailabilityContext::from(&context()),
    );
    both(
        corpus,
        "content_item",
        &ToolContentItem::audio(vec![1, 2, 3], "audio/ogg"),
    );
    both(corpus, "content_type", &ContentType::ResourceLink);
    both(corpus, "annotation", &annotation());
    both(corpus, "icon", &spec().icons[0]);
    both(corpus, "binary", &BinaryData(vec![0, 255, 7]));
    both(corpus, "provider_type", &ProviderType::Mcp);
    both(corpus, "tool_definition", &spec().to_llm_definition());
    both(corpus, "model_api", &ModelApi::Gemini);
    // Once an unbounded allocation: binary data as an array announcing 4 Gi elements.
    let mut lying = vec![selector::<BinaryData>(Format::MsgPack)];
    lying.extend([0xdd, 0xff, 0xff, 0xff, 0xff, 0x01]);
    corpus.write("payloads", "binary_announced_4gib.msgpack", &lying);
}

fn config(corpus: &mut Corpus) {
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("../maitool.toml");
    let shipped = std::fs::read(&shipped).expect("read the shipped maitool.toml");
    corpus.write("config", "shipped_maitool_toml", &shipped);
    let seeds: [(&str, &str); 7] = [
        ("empty", ""),
        (
            "env_expansion",
            "[host]\ndata_dir = \"${MAITOOL_DATA:-data}\"\ncontrol_socket = \"$${literal}.sock\"\n",
        ),
        (
            "plugin_folder_runner",
            "[plugin_runtime]\nhandshake_timeout_ms = 5000\nrestart_backoff_initial_ms = 100\nrestart_backoff_max_ms = 50\n\n[[runners]]\nname = \"weather\"\nplugin_dir = \"plugins/weather\"\nenabled = false\nargs = [\"--verbose\"]\nenv = { RUST_LOG = \"debug\" }\n\n[runners.plugins.\"acme.weather\"]\ncapabilities = [\"send.text\", \"kv.*\"]\nconfig_file = \"weather.toml\"\n[runners.plugins.\"acme.weather\".config]\nunits = \"imperial\"\n",
        ),
        (
            "mcp_servers",
            "[mcp]\nenable = true\nconnect_timeout_seconds = 10.5\nhealth_check_interval_seconds = 0\n\n[mcp.reconnect]\ninitial_delay_seconds = 0.25\nmax_delay_seconds = 8\n\n[[mcp.servers]]\nname = \"files\"\ntransport = \"stdio\"\ncommand = \"bin/files-server\"\nargs = [\"--root\", \"/srv\"]\ncwd = \"srv\"\ntool_prefix = \"fs.\"\n\n[[mcp.servers]]\nname = \"search\"\ntransport = \"streamable_http\"\nurl = \"https://127.0.0.1:8443/mcp\"\nheaders = { \"X-Team\" = \"maitool\" }\nauthorization = { mode = \"bearer\", bearer_token = \"${SEARCH_TOKEN:-dev}\" }\nhttp_timeout_seconds = 5\nread_timeout_seconds = 30\nidle_timeout_seconds = 10\nprotocol = \"legacy\"\n\n[[mcp.servers]]\nname = \"old\"\ntransport = \"sse\"\nurl = \"http://127.0.0.1:9000/sse\"\nenabled = false\n",
        ),
        (
            "builtin",
            "[builtin]\nenable_rich_reply = true\nfocus_mode = true\nfocus_mode_chat_scope = \"group\"\nfocus_mode_sessions = [\"qq:123\"]\nmemory_query_default_limit = 20\nmax_consecutive_wait_count = 2\nexpression_selection_mode = \"vector_intent\"\ndatabase = \":memory:\"\n\n[builtin.descriptions]\nreply = \"Reply to the chat.\"\n",
        ),
        ("unknown_key", "[plugin_runtime]\nmax_restart = 3\n"),
        // Once a panic: the error excerpt was cut inside the `é`.
        (
            "unterminated_reference_multibyte",
            "[host]\ndata_dir = \"${aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\u{e9} and more\"\n",
        ),
    ];
    for (name, text) in seeds {
        corpus.write("config", name, text.as_bytes());
    }
}

/// Input: manifest, NUL, settings tables, NUL, plugin configuration file.
fn manifest(corpus: &mut Corpus) {
    let seeds: [(&str, [&str; 3]); 4] = [
        (
            "weather_plugin",
            [
                "id = \"acme.weather\"\nversion = \"1.2.0\"\nname = \"Weather\"\ndescription = \"Forecasts.\"\nexecutable = \"bin/weather\"\ncapabilities = [\"send.text\"]\nconfig_file = \"config.toml\"\n",
                "[\"acme.weather\"]\ncapabilities = [\"kv.*\", \"send.text\"]\n[\"acme.weather\".config]\nunits = \"imperial\"\n",
                "city = \"Oslo\"\nunits = \"metric\"\n[limits]\ndays = 7\nratio = 0.5\nwhen = 1979-05-27T07:32:00Z\n",
            ],
        ),
        (
            "operator_config_file",
            [
                "id = \"acme.notes\"\nversion = \"0.3.0\"\nexecutable = \"/usr/lib/acme/notes\"\n",
                "[\"acme.notes\"]\nenabled = false\nconfig_file = \"/etc/maitool/notes.toml\"\n[other]\ncapabilities = [\"send.text\"]\n",
                "max_notes = 100\n",
            ],
        ),
        (
            "manifest_only",
            [
                "id = \"a\"\nversion = \"1\"\nexecutable = \"run\"\n",
                "",
                "",
            ],
        ),
        (
            "unknown_manifest_key",
            [
                "id = \"a\"\nversion = \"1\"\nexecutable = \"run\"\nentry = \"x\"\n",
                "",
                "= bad",
            ],
        ),
    ];
    for (name, parts) in seeds {
        corpus.write("manifest", name, parts.join("\0").as_bytes());
    }
}

fn tool_calls(corpus: &mut Corpus) {
    let calls = [
        Call {
            name: "get_weather".into(),
            arguments: object(json!({"city": "Oslo", "days": 3, "ratio": 0.1})),
            call_id: "call_1".into(),
        },
        Call {
            name: "get_time".into(),
            arguments: JsonObject::new(),
            call_id: "call_2".into(),
        },
    ];
    for api in ModelApi::ALL {
        let answer = model_answer(api, &calls);
        corpus.write(
            "tool_calls",
            &format!("{api}_answer.json"),
            answer.to_string().as_bytes(),
        );
    }
    let odd = [
        (
            "chat_text_only",
            json!({"role": "assistant", "content": "no tools needed"}),
        ),
        (
            "chat_bad_arguments",
            json!([{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{\"a\": 1"}}]),
        ),
        (
            "responses_mixed_output",
            json!({"output": [{"type": "reasoning", "summary": []}, {"type": "message", "content": []}, {"type": "function_call", "call_id": "c", "name": "f", "arguments": ""}]}),
        ),
        (
            "anthropic_string_input",
            json!({"content": [{"type": "text", "text": "hi"}, {"type": "tool_use", "id": "t", "name": "f", "input": "{\"x\": [1, 2]}"}]}),
        ),
        (
            "gemini_no_ids",
            json!({"candidates": [{"content": {"parts": [{"text": "hi"}, {"functionCall": {"name": "f"}, "thoughtSignature": "c2ln"}]}}]}),
        ),
    ];
    for (name, value) in odd {
        corpus.write(
            "tool_calls",
            &format!("{name}.json"),
            value.to_string().as_bytes(),
        );
    }
    let definitions = vec![
        spec().to_llm_definition(),
        ToolDefinition {
            name: "get_time".into(),
            description: "Now.".into(),
            parameters_schema: None,
        },
    ];
    let text = serde_json::to_string(&definitions).expect("encode");
    corpus.write("tool_calls", "tool_definitions.json", text.as_bytes());
    let text = serde_json::to_string(&[spec()]).expect("encode");
    corpus.write("tool_calls", "tool_specs.json", text.as_bytes());
}
