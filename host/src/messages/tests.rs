//! The flow with a real store and a plugin runtime without runners: the checks, the hook
//! point, storage. Commands and event handlers run by real runners are in the end-to-end
//! tests (`tests/tests/messages.rs`, `tests/tests/maibot_messages.rs`).

use std::sync::Arc;

use async_trait::async_trait;
use maitool_protocol::JsonObject;
use parking_lot::Mutex;
use serde_json::Value;

use super::*;
use crate::builtin::engine::ChatType;
use crate::builtin::store::MessageWindow;
use crate::plugin::{CapabilityService, KvStore, MemorySink, RuntimeConfig};

async fn flow() -> (Arc<MessageFlow>, Store, Arc<PluginRuntime>) {
    let store = Store::in_memory().await.unwrap();
    let sends = SendEvents::new(Arc::new(MemorySink::default()));
    let capabilities = Arc::new(CapabilityService::new(
        sends.clone(),
        KvStore::in_memory().unwrap(),
    ));
    let plugins =
        PluginRuntime::start(RuntimeConfig::default(), Vec::new(), capabilities, None).unwrap();
    let flow = MessageFlow::new(plugins.clone(), Some(store.clone()), &sends);
    (flow, store, plugins)
}

fn hello(stream: &str) -> ChatMessage {
    ChatMessage::new(stream, "u1", "hello")
        .on_platform("qq")
        .in_group("g1")
        .from_user_named("Alice")
}

async fn history(store: &Store, stream: &str) -> Vec<String> {
    store
        .messages_in_window(MessageWindow {
            stream_id: Some(stream.to_owned()),
            ..MessageWindow::default()
        })
        .await
        .unwrap()
        .into_iter()
        .map(|m| format!("{}: {}", m.sender_name, m.text))
        .collect()
}

#[tokio::test]
async fn a_message_opens_its_stream_and_is_stored() {
    let (flow, store, _plugins) = flow().await;
    let outcome = flow.receive(hello("st1")).await.unwrap();
    assert!(outcome.stored, "{outcome:?}");
    assert!(outcome.message_id.starts_with("in-"));
    assert_eq!(outcome.command, None);
    assert_eq!(history(&store, "st1").await, ["Alice: hello"]);
    let stream = store.stream("st1").await.unwrap().unwrap();
    assert_eq!(stream.platform, "qq");
    assert_eq!(stream.chat_type, Some(ChatType::Group));
    assert_eq!(stream.target_id, "g1");
    // A known stream fills the platform and the group.
    let outcome = flow
        .receive(ChatMessage::new("st1", "u2", "again"))
        .await
        .unwrap();
    assert!(outcome.stored);
    assert_eq!(history(&store, "st1").await.len(), 2);
}

#[tokio::test]
async fn malformed_messages_are_refused_and_nothing_is_stored() {
    let (flow, store, _plugins) = flow().await;
    let refusal = |message: ChatMessage| {
        let flow = flow.clone();
        async move { flow.receive(message).await.unwrap_err().to_string() }
    };
    assert_eq!(
        refusal(ChatMessage::new("st1", "u1", "  ").on_platform("qq")).await,
        "the message is empty: give it text or an image"
    );
    assert_eq!(
        refusal(ChatMessage::new(" ", "u1", "x")).await,
        "a message needs a stream id"
    );
    assert_eq!(
        refusal(ChatMessage::new("st1", "", "x")).await,
        "a message needs the sender's user id"
    );
    assert!(
        refusal(ChatMessage::new("nowhere", "u1", "x"))
            .await
            .starts_with("stream nowhere is not in the store: give the message's platform")
    );
    assert_eq!(history(&store, "nowhere").await.len(), 0);
    assert!(store.stream("nowhere").await.unwrap().is_none());

    flow.receive(hello("st1")).await.unwrap();
    assert_eq!(
        refusal(hello("st1").in_group("g2")).await,
        "stream st1 is the chat of group g1; the message says group g2"
    );
    assert_eq!(
        refusal(hello("st1").on_platform("telegram")).await,
        "stream st1 is on platform qq; the message says platform telegram"
    );
    let mut with_id = hello("st1");
    with_id.message_id = "m1".into();
    flow.receive(with_id.clone()).await.unwrap();
    assert_eq!(refusal(with_id).await, "message m1 is already in the store");
    assert_eq!(history(&store, "st1").await.len(), 2);
}

/// Hooks that record what they saw, drop messages containing "drop" before processing, and
/// rewrite "secret" after it.
#[derive(Default)]
struct Recording {
    seen: Mutex<Vec<String>>,
}

#[async_trait]
impl MessageHooks for Recording {
    async fn run(&self, hook: &str, mut kwargs: JsonObject) -> HookOutcome {
        let text = kwargs["message"]["processed_plain_text"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        self.seen.lock().push(format!("{hook}: {text}"));
        let mut outcome = HookOutcome::default();
        if hook == hook_names::RECEIVE_BEFORE_PROCESS && text.contains("drop") {
            outcome.aborted_by = Some("tests.dropper".into());
        }
        if hook == hook_names::RECEIVE_AFTER_PROCESS && text.contains("secret") {
            let message = kwargs["message"].as_object_mut().unwrap();
            message.insert("processed_plain_text".into(), Value::from("[redacted]"));
        }
        outcome.kwargs = kwargs;
        outcome
    }
}

#[tokio::test]
async fn hooks_at_the_receive_points_drop_and_change_messages() {
    let (flow, store, _plugins) = flow().await;
    let hooks = Arc::new(Recording::default());
    flow.set_hooks(hooks.clone());

    let dropped = flow
        .receive(ChatMessage::new("st1", "u1", "please drop this").on_platform("qq"))
        .await
        .unwrap();
    assert!(!dropped.stored);
    assert_eq!(
        dropped.stopped,
        Some(Stop {
            at: "chat.receive.before_process".into(),
            by: "tests.dropper".into()
        })
    );
    assert_eq!(
        dropped.not_stored_because.as_deref(),
        Some("stopped by tests.dropper at chat.receive.before_process")
    );

    let changed = flow
        .receive(ChatMessage::new("st1", "u1", "my secret").on_platform("qq"))
        .await
        .unwrap();
    assert!(changed.stored);
    assert_eq!(changed.text, "[redacted]");
    assert!(changed.hooks.iter().any(|h| h.modified));
    assert_eq!(history(&store, "st1").await, ["u1: [redacted]"]);
    assert_eq!(
        *hooks.seen.lock(),
        [
            "chat.receive.before_process: please drop this",
            "chat.receive.before_process: my secret",
            "chat.receive.after_process: my secret",
        ]
    );
}

#[tokio::test]
async fn a_plugins_send_passes_the_send_hooks_and_a_stopped_one_is_not_delivered() {
    let sink = Arc::new(MemorySink::default());
    let sends = SendEvents::new(sink.clone());
    let capabilities = Arc::new(CapabilityService::new(
        sends.clone(),
        KvStore::in_memory().unwrap(),
    ));
    capabilities.configure_plugin("p", vec!["send.text".into()], JsonObject::new());
    let plugins = PluginRuntime::start(
        RuntimeConfig::default(),
        Vec::new(),
        capabilities.clone(),
        None,
    )
    .unwrap();
    let flow = MessageFlow::new(plugins, None, &sends);
    struct NoShouting;
    #[async_trait]
    impl MessageHooks for NoShouting {
        async fn run(&self, hook: &str, kwargs: JsonObject) -> HookOutcome {
            let loud = kwargs["message"]["processed_plain_text"]
                .as_str()
                .is_some_and(|t| t.ends_with('!'));
            HookOutcome {
                aborted_by: (hook == hook_names::SEND_BEFORE_SEND && loud)
                    .then(|| "tests.calm".to_owned()),
                ..HookOutcome::unchanged(kwargs)
            }
        }
    }
    flow.set_hooks(Arc::new(NoShouting));
    let args = |text: &str| {
        serde_json::json!({"stream_id": "st1", "text": text})
            .as_object()
            .unwrap()
            .clone()
    };
    let sent = capabilities
        .call("p", "send.text", &args("hi"))
        .await
        .unwrap();
    assert_eq!(sent["success"], true);
    let stopped = capabilities
        .call("p", "send.text", &args("HI!"))
        .await
        .unwrap();
    assert_eq!(stopped["success"], false);
    assert_eq!(
        stopped["error"],
        "the message was stopped by tests.calm at send_service.before_send"
    );
    let texts: Vec<String> = sink.messages().into_iter().map(|m| m.text).collect();
    assert_eq!(texts, ["hi"]);
}
