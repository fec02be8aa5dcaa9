//! What call number `i` invokes, what a success must contain, and how a failure is
//! classified. Every call's plan derives from the seed and its number alone, so a failing
//! call can be replayed from the printed seed whatever task or timing ran it.

use std::time::Duration;

use maitool_protocol::{JsonObject, ToolExecutionResult};
use serde_json::{Value, json};

use super::{MCP_TIMEOUT, PLUGIN_TIMEOUT, Rng};

/// The runners of the test: (runner name, example binary).
pub const RUNNERS: [(&str, &str); 8] = [
    ("misbehaving", "maitool-example-misbehaving"),
    ("dice", "maitool-example-dice"),
    ("notes", "maitool-example-notes"),
    ("media", "maitool-example-media"),
    ("legacy", "maitool-example-legacy"),
    ("replica1", "maitool-example-replica"),
    ("replica2", "maitool-example-replica"),
    ("replica3", "maitool-example-replica"),
];

/// What a successful answer must carry.
#[derive(Debug, Clone, PartialEq)]
pub enum Expect {
    /// `content` equals this.
    Content(String),
    /// `content` starts with this.
    Prefix(String),
    /// `structured_content[key]` equals this.
    Structured(&'static str, Value),
}

/// One planned call.
#[derive(Debug, Clone)]
pub struct Call {
    /// The exposed tool name.
    pub tool: String,
    /// Its arguments.
    pub args: JsonObject,
    /// The check of a successful answer.
    pub expect: Expect,
    /// The limit the host enforces on this call.
    pub timeout: Duration,
    /// For MCP tools, the server's own tool name (error messages name it).
    pub mcp_name: Option<&'static str>,
}

/// How a call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// Answered as expected.
    Success,
    /// The runner or server went away during the call.
    Crashed,
    /// The host gave up at the call's timeout.
    TimedOut,
    /// The tool was withdrawn or its runner / server was not connected.
    Unavailable,
}

impl Class {
    /// All classes, in report order.
    pub const ALL: [Class; 4] = [
        Class::Success,
        Class::Crashed,
        Class::TimedOut,
        Class::Unavailable,
    ];

    /// Report label.
    pub fn label(self) -> &'static str {
        match self {
            Class::Success => "success",
            Class::Crashed => "crashed",
            Class::TimedOut => "timed out",
            Class::Unavailable => "unavailable",
        }
    }
}

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        other => panic!("expected an object, got {other}"),
    }
}

fn plugin(tool: impl Into<String>, args: Value, expect: Expect) -> Call {
    Call {
        tool: tool.into(),
        args: object(args),
        expect,
        timeout: PLUGIN_TIMEOUT,
        mcp_name: None,
    }
}

fn mcp(prefix: &str, name: &'static str, args: Value, expect: Expect) -> Call {
    Call {
        tool: format!("{prefix}{name}"),
        args: object(args),
        expect,
        timeout: MCP_TIMEOUT,
        mcp_name: Some(name),
    }
}

/// The plan of call `index`. Weights (out of 100) keep most calls on plugins, which are cheap,
/// and a steady stream on both MCP servers.
pub fn plan(seed: u64, index: u64) -> Call {
    let mut rng = Rng::new(seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let text = format!("c{index}-{:x}", rng.next());
    let pick = rng.below(100);
    let small = |rng: &mut Rng| rng.below(1000) as i64;
    match pick {
        0..=3 => plugin(
            "echo",
            json!({ "text": text }),
            Expect::Content(text.clone()),
        ),
        4..=5 => {
            let ms = 1 + rng.below(30);
            plugin(
                "slow",
                json!({ "ms": ms }),
                Expect::Content(format!("slept {ms} ms")),
            )
        }
        6..=15 => {
            let (a, b) = (small(&mut rng), small(&mut rng));
            plugin(
                "calculate",
                json!({ "a": a, "b": b, "op": "add" }),
                Expect::Content(format!("{}", a + b)),
            )
        }
        16..=21 => {
            // A runner-to-host capability call (`kv.set`) inside each invocation.
            let key = format!("k{}", index % 64);
            plugin(
                "remember",
                json!({ "key": key, "text": text }),
                Expect::Content(format!("remembered {key}")),
            )
        }
        22..=27 => {
            let count = 1 + rng.below(8) as usize;
            let numbers: Vec<i64> = (0..count).map(|_| small(&mut rng)).collect();
            plugin(
                "describe_numbers",
                json!({ "numbers": numbers }),
                Expect::Structured("count", json!(count)),
            )
        }
        28..=33 => plugin(
            "greet",
            json!({ "name": text }),
            Expect::Prefix(format!("greeted {text} warmly")),
        ),
        34..=79 => {
            let replica = 1 + (pick - 34) % 3;
            if pick >= 70 {
                let ms = 1 + rng.below(50);
                plugin(
                    format!("replica{replica}_slow"),
                    json!({ "ms": ms }),
                    Expect::Content(format!("slept {ms} ms")),
                )
            } else {
                plugin(
                    format!("replica{replica}_echo"),
                    json!({ "text": text }),
                    Expect::Content(text.clone()),
                )
            }
        }
        80..=85 => mcp(
            "mcp_",
            "echo",
            json!({ "text": text }),
            Expect::Content(text.clone()),
        ),
        86..=89 => {
            let (a, b) = (small(&mut rng), small(&mut rng));
            mcp(
                "mcp_",
                "add",
                json!({ "a": a, "b": b }),
                Expect::Content(format!("{a} + {b} = {}", a + b)),
            )
        }
        _ => mcp(
            "web_",
            "echo",
            json!({ "text": text }),
            Expect::Content(text.clone()),
        ),
    }
}

/// Classifies an answer; `Err` says why the answer is not acceptable at all.
pub fn classify(call: &Call, result: &ToolExecutionResult) -> Result<Class, String> {
    if result.tool_name != call.tool {
        return Err(format!(
            "answer for tool {:?} instead of {:?}: {result:?}",
            result.tool_name, call.tool
        ));
    }
    if result.success {
        let matches = match &call.expect {
            Expect::Content(want) => result.content == *want,
            Expect::Prefix(want) => result.content.starts_with(want.as_str()),
            Expect::Structured(key, want) => result
                .structured_content
                .as_ref()
                .and_then(|s| s.get(key))
                .is_some_and(|v| v.as_f64() == want.as_f64()),
        };
        return if matches {
            Ok(Class::Success)
        } else {
            Err(format!(
                "wrong answer for {}: expected {:?}, got content {:?} structured {:?}",
                call.tool, call.expect, result.content, result.structured_content
            ))
        };
    }
    let message = &result.error_message;
    let names_tool = message.contains(call.tool.as_str())
        || call
            .mcp_name
            .is_some_and(|name| message.contains(&format!("'{name}'")));
    if !names_tool {
        return Err(format!(
            "error of {} does not name the tool: {message:?} (metadata {:?})",
            call.tool, result.metadata
        ));
    }
    let tag = |key: &str| result.metadata.get(key).and_then(Value::as_str);
    let class = match (tag("error_code"), tag("error_kind")) {
        (Some("E_PLUGIN_CRASHED"), _) | (_, Some("transport_closed")) => Class::Crashed,
        (Some("E_TIMEOUT"), _) | (_, Some("timeout")) => Class::TimedOut,
        _ if message.contains("tool not found")
            || message.contains("is not running")
            || message.contains("is not connected") =>
        {
            Class::Unavailable
        }
        _ => {
            return Err(format!(
                "error of {} outside the crash / timeout / unavailable classes: {message:?} (metadata {:?})",
                call.tool, result.metadata
            ));
        }
    };
    Ok(class)
}
