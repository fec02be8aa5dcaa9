//! The tool-call executor on whole model turns in each API's shape.

use crate::llm::ModelApi;
use serde_json::{Value, json};

use super::fixtures::{PNG, World, ctx};
use crate::builtin::{
    BuiltinConfig, CallStatus, ContextSearchResult, NOT_EXPOSED_HINT, Stage, build_exposure,
};

fn openai_call(id: &str, name: &str, arguments: Value) -> Value {
    json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments.to_string()}})
}

#[tokio::test]
async fn an_openai_turn_runs_in_order_splits_media_and_stops_at_a_pause() {
    let world = World::new(BuiltinConfig::default()).await;
    world.add_emoji().await;
    let ctx = ctx("s1");
    let turn = json!({
        "choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [
            openai_call("c1", "send_emoji", json!({"emotion": "happy"})),
            openai_call("c2", "weather", json!({})),
            openai_call("c3", "wait", json!({"seconds": 10})),
            openai_call("c4", "reply", json!({"msg_id": "m1", "text": "never sent"})),
        ]}}]
    });
    let outcome = world
        .executor
        .execute_raw(ModelApi::OpenAiChat, &turn, &ctx, None)
        .await
        .unwrap();
    let statuses: Vec<(&str, CallStatus)> = outcome
        .messages
        .iter()
        .map(|m| (m.call_id.as_str(), m.status))
        .collect();
    assert_eq!(
        statuses,
        vec![
            ("c1", CallStatus::Succeeded),
            ("c2", CallStatus::Succeeded),
            ("c3", CallStatus::Succeeded),
            ("c4", CallStatus::Skipped)
        ]
    );
    assert_eq!(outcome.paused_by.as_deref(), Some("c3"));

    // The emoji image is split out with a stable id and listed in the result text.
    assert_eq!(outcome.media.len(), 1);
    assert_eq!(outcome.media[0].media_id, "tool_result:c1:1");
    assert_eq!(outcome.media[0].item.data.0, PNG);
    let emoji = &outcome.messages[0];
    assert_eq!(emoji.media_ids, vec!["tool_result:c1:1"]);
    assert!(
        emoji.content.starts_with("Emoji sent: smiling cat"),
        "{}",
        emoji.content
    );
    assert!(
        emoji.content.ends_with("<tool_result_media_list>\n<media msg_id=\"tool_result:c1:1\" type=\"image\" mime=\"image/png\"/>\n</tool_result_media_list>"),
        "{}",
        emoji.content
    );
    // The invocation carries the turn's session, stream and reasoning.
    let weather = &outcome.messages[1];
    assert_eq!(weather.content, "Sunny in s1");
    assert_eq!(weather.invocation.session_id, "session-s1");
    assert_eq!(weather.invocation.reasoning, "thinking about it");
    // wait pauses; its history entry waits for the pause to end.
    assert!(outcome.messages[2].history_deferred);
    assert_eq!(
        outcome.messages[3].content,
        "Skipped: wait paused execution before this call ran."
    );
    assert!(outcome.messages[3].result.is_none());
    // Nothing of the skipped reply reached the chat: only the emoji did.
    let history = world.store.recent_messages("s1", 10, &[]).await.unwrap();
    assert_eq!(history.len(), 1);
    // The executed calls were recorded; the media is addressable for send_image.
    let records = world.store.tool_calls("session-s1").await.unwrap();
    assert_eq!(
        records
            .iter()
            .map(|r| r.call_id.as_str())
            .collect::<Vec<_>>(),
        vec!["c1", "c2", "c3"]
    );
    let sent = world
        .executor
        .execute_raw(
            ModelApi::OpenAiChat,
            &json!([openai_call(
                "c5",
                "send_image",
                json!({"media_index": "tool_result:c1:1"})
            )]),
            &ctx,
            None,
        )
        .await
        .unwrap();
    assert_eq!(
        sent.messages[0].status,
        CallStatus::Succeeded,
        "{}",
        sent.messages[0].content
    );
}

#[tokio::test]
async fn an_anthropic_turn_with_finish_in_the_middle_and_deduplicated_post_history() {
    let world = World::new(BuiltinConfig::default()).await;
    let ctx = ctx("s1");
    let turn = json!({
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Let me draw it twice."},
            {"type": "tool_use", "id": "toolu_1", "name": "chart", "input": {}},
            {"type": "tool_use", "id": "toolu_2", "name": "chart", "input": {}},
            {"type": "tool_use", "id": "toolu_3", "name": "finish", "input": {"reason": "done"}},
            {"type": "tool_use", "id": "toolu_4", "name": "weather", "input": {}},
        ]
    });
    let outcome = world
        .executor
        .execute_raw(ModelApi::Anthropic, &turn, &ctx, None)
        .await
        .unwrap();
    assert_eq!(outcome.messages.len(), 4);
    assert_eq!(outcome.messages[3].status, CallStatus::Skipped);
    assert!(outcome.finish_round && !outcome.wait_rest);
    assert_eq!(outcome.paused_by.as_deref(), Some("toolu_3"));
    // The chart's image is item 1; its text item stays in the text.
    let ids: Vec<&str> = outcome.media.iter().map(|m| m.media_id.as_str()).collect();
    assert_eq!(ids, vec!["tool_result:toolu_1:1", "tool_result:toolu_2:1"]);
    assert!(
        outcome.messages[0]
            .content
            .starts_with("[image image/png]\nA rising line.\n<tool_result_media_list>")
    );
    assert!(outcome.messages[0].content.contains("name=\"chart.png\""));
    // The same post-history message id from both calls appears once; id-less ones are kept.
    assert_eq!(
        outcome.post_history,
        vec![
            json!({"message_id": "chart-note", "role": "user", "content": "note"}),
            json!({"role": "user", "content": "no id"}),
            json!({"role": "user", "content": "no id"}),
        ]
    );
    // Rendered for Anthropic: one user message, tool results first, then media, then posts.
    let rendered = outcome.to_messages(ModelApi::Anthropic);
    assert_eq!(rendered.len(), 4);
    let blocks = rendered[0]["content"].as_array().unwrap();
    let kinds: Vec<&str> = blocks.iter().map(|b| b["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        vec![
            "tool_result",
            "tool_result",
            "tool_result",
            "tool_result",
            "text",
            "image",
            "text",
            "image"
        ]
    );
    assert_eq!(blocks[3]["tool_use_id"], json!("toolu_4"));
    assert_eq!(
        blocks[3]["is_error"],
        json!(true),
        "a skipped call is not a success"
    );
    assert_eq!(blocks[5]["source"]["media_type"], json!("image/png"));
}

#[tokio::test]
async fn a_gemini_turn_gets_call_ids_and_renders_function_responses() {
    let world = World::new(BuiltinConfig::default()).await;
    let ctx = ctx("s1");
    let turn = json!({"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "chart", "args": {}}},
        {"functionCall": {"name": "wait", "args": {"seconds": 3}}},
        {"functionCall": {"name": "weather", "args": {}}},
    ]}}]});
    let outcome = world
        .executor
        .execute_raw(ModelApi::Gemini, &turn, &ctx, None)
        .await
        .unwrap();
    let statuses: Vec<CallStatus> = outcome.messages.iter().map(|m| m.status).collect();
    assert_eq!(
        statuses,
        vec![
            CallStatus::Succeeded,
            CallStatus::Succeeded,
            CallStatus::Skipped
        ]
    );
    assert_eq!(
        outcome.media[0].media_id,
        format!("tool_result:{}:1", outcome.messages[0].call_id)
    );
    let rendered = outcome.to_messages(ModelApi::Gemini);
    let parts = rendered[0]["parts"].as_array().unwrap();
    assert_eq!(parts[0]["functionResponse"]["name"], json!("chart"));
    assert_eq!(
        parts[2]["functionResponse"]["response"]["error"]
            .as_str()
            .map(|s| s.starts_with("Skipped")),
        Some(true)
    );
    assert_eq!(parts[4]["inlineData"]["mimeType"], json!("image/png"));
    let openai = outcome.to_messages(ModelApi::OpenAiChat);
    assert_eq!(openai[0]["role"], json!("tool"));
    assert_eq!(
        openai[3]["content"][1]["image_url"]["url"]
            .as_str()
            .map(|u| u.starts_with("data:image/png;base64,")),
        Some(true)
    );
    let responses = outcome.to_messages(ModelApi::OpenAiResponses);
    assert_eq!(responses[0]["type"], json!("function_call_output"));
}

#[tokio::test]
async fn any_other_tool_resets_the_wait_streak_and_the_limit_makes_the_session_rest() {
    let world = World::new(BuiltinConfig {
        max_consecutive_wait_count: 2,
        ..BuiltinConfig::default()
    })
    .await;
    let ctx = ctx("s1");
    let wait = json!([openai_call("w", "wait", json!({"seconds": 1}))]);
    let run = |raw: Value| {
        let world = &world;
        let ctx = &ctx;
        async move {
            world
                .executor
                .execute_raw(ModelApi::OpenAiChat, &raw, ctx, None)
                .await
                .unwrap()
        }
    };
    let count = |outcome: &crate::builtin::TurnOutcome| {
        outcome.messages[0].result.as_ref().unwrap().metadata["consecutive_wait_count"].clone()
    };
    assert_eq!(count(&run(wait.clone()).await), json!(1));
    assert_eq!(count(&run(wait.clone()).await), json!(2));
    run(json!([openai_call("x", "weather", json!({}))])).await;
    assert_eq!(
        world
            .engine
            .session_state("session-s1")
            .await
            .unwrap()
            .consecutive_waits,
        0
    );
    assert_eq!(count(&run(wait.clone()).await), json!(1));
    assert_eq!(count(&run(wait.clone()).await), json!(2));
    let limited = run(wait.clone()).await;
    assert!(limited.wait_rest);
    assert!(
        limited.messages[0]
            .result
            .as_ref()
            .unwrap()
            .pauses_execution()
    );
    assert!(
        !limited.messages[0].history_deferred,
        "no wait is pending at the limit"
    );
    assert!(
        world
            .engine
            .session_state("session-s1")
            .await
            .unwrap()
            .resting
    );
}

#[tokio::test]
async fn an_unexposed_tool_still_runs_and_its_failure_points_to_tool_search() {
    let world = World::new(BuiltinConfig::default()).await;
    let ctx = ctx("s1");
    let avail = ctx.availability();
    let exposure = build_exposure(&world.registry, &world.discovery, &avail, Stage::Action)
        .await
        .unwrap();
    assert!(!exposure.is_exposed("translate"));
    let turn = json!([
        openai_call("t1", "translate", json!({"text": "hi"})),
        openai_call("t2", "translate", json!({})),
        openai_call("t3", "view_forward_message", json!({})),
        openai_call("t4", "weather", json!({"bogus": 1})),
        openai_call("t5", "no_such_tool", json!({})),
    ]);
    let outcome = world
        .executor
        .execute_raw(ModelApi::OpenAiChat, &turn, &ctx, Some(&exposure))
        .await
        .unwrap();
    assert_eq!(outcome.messages[0].content, "HI", "an unexposed tool runs");
    for failed in &outcome.messages[1..3] {
        assert_eq!(failed.status, CallStatus::Failed);
        assert!(
            failed.content.ends_with(NOT_EXPOSED_HINT),
            "{}",
            failed.content
        );
        assert!(
            failed
                .result
                .as_ref()
                .unwrap()
                .error_message
                .ends_with(NOT_EXPOSED_HINT)
        );
    }
    assert!(
        outcome.messages[1]
            .content
            .starts_with("translate needs `text`")
    );
    assert_eq!(
        outcome.messages[3].status,
        CallStatus::Succeeded,
        "weather is exposed"
    );
    assert_eq!(
        outcome.messages[4].content,
        format!("tool not found: no_such_tool {NOT_EXPOSED_HINT}")
    );

    // Once discovered (and while the search stays in context), no hint.
    let search = json!([openai_call(
        "ts",
        "tool_search",
        json!({"query": "translate"})
    )]);
    world
        .executor
        .execute_raw(ModelApi::OpenAiChat, &search, &ctx, Some(&exposure))
        .await
        .unwrap();
    world
        .discovery
        .sync_with_context(&ctx.session_id, &[ContextSearchResult::call("ts")])
        .await
        .unwrap();
    let exposure = build_exposure(&world.registry, &world.discovery, &avail, Stage::Action)
        .await
        .unwrap();
    let outcome = world
        .executor
        .execute_raw(
            ModelApi::OpenAiChat,
            &json!([openai_call("t6", "translate", json!({}))]),
            &ctx,
            Some(&exposure),
        )
        .await
        .unwrap();
    assert_eq!(outcome.messages[0].content, "translate needs `text`");
}

#[tokio::test]
async fn a_malformed_turn_runs_nothing() {
    let world = World::new(BuiltinConfig::default()).await;
    let ctx = ctx("s1");
    let turn = json!([
        openai_call("ok", "weather", json!({})),
        {"id": "bad", "type": "function", "function": {"name": "wait", "arguments": "{\"seconds\": "}},
    ]);
    let error = world
        .executor
        .execute_raw(ModelApi::OpenAiChat, &turn, &ctx, None)
        .await
        .unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("cannot read the model's tool calls: tool call 1 (`wait`)"),
        "{error}"
    );
    assert!(
        world
            .store
            .tool_calls("session-s1")
            .await
            .unwrap()
            .is_empty()
    );
}

/// Tools whose results ask to end the round: `wrap_up` from its result, `refuse` from a
/// failed result (which never ends it).
struct Stoppers;

#[async_trait::async_trait]
impl crate::provider::ToolProvider for Stoppers {
    fn provider_name(&self) -> &str {
        "stoppers"
    }

    fn provider_type(&self) -> maitool_protocol::ProviderType {
        maitool_protocol::ProviderType::Plugin
    }

    async fn list_tools(
        &self,
        _: &maitool_protocol::ToolAvailabilityContext,
    ) -> Result<Vec<std::sync::Arc<maitool_protocol::ToolSpec>>, crate::provider::ProviderError>
    {
        Ok(["wrap_up", "refuse"]
            .into_iter()
            .map(|name| {
                std::sync::Arc::new(
                    maitool_protocol::ToolSpec::new(name, name)
                        .with_metadata("visibility", "visible"),
                )
            })
            .collect())
    }

    async fn invoke(
        &self,
        invocation: maitool_protocol::ToolInvocation,
        _: &maitool_protocol::ToolExecutionContext,
    ) -> Result<maitool_protocol::ToolExecutionResult, crate::provider::ProviderError> {
        let name = invocation.tool_name.as_str();
        let mut result = match name {
            "wrap_up" => maitool_protocol::ToolExecutionResult::success(name, "wrapped up"),
            _ => maitool_protocol::ToolExecutionResult::failure(name, "no"),
        };
        result.stop_after_execution = true;
        Ok(result)
    }
}

#[tokio::test]
async fn stop_after_execution_lets_the_batch_finish_then_ends_the_round() {
    let world = World::new(BuiltinConfig::default()).await;
    world
        .registry
        .register_provider(std::sync::Arc::new(Stoppers));
    let ctx = ctx("s1");
    let turn = json!({"choices": [{"message": {"role": "assistant", "tool_calls": [
        openai_call("c1", "refuse", json!({})),
        openai_call("c2", "wrap_up", json!({})),
        openai_call("c3", "weather", json!({})),
    ]}}]});
    let outcome = world
        .executor
        .execute_raw(ModelApi::OpenAiChat, &turn, &ctx, None)
        .await
        .unwrap();
    let statuses: Vec<CallStatus> = outcome.messages.iter().map(|m| m.status).collect();
    // Unlike a pause, the calls after it still run.
    assert_eq!(
        statuses,
        [
            CallStatus::Failed,
            CallStatus::Succeeded,
            CallStatus::Succeeded
        ]
    );
    // The failed result's flag does not count; the first successful one does.
    assert_eq!(outcome.stopped_by.as_deref(), Some("c2"));
    assert!(outcome.finish_round);
    assert_eq!(outcome.paused_by, None);
    let state = world.engine.session_state(&ctx.session_id).await.unwrap();
    assert_eq!(
        (state.rounds_ended, state.last_end_reason.as_str()),
        (1, "stop_after_execution")
    );

    // Only failed results asking for it: the round goes on.
    let turn = json!({"choices": [{"message": {"role": "assistant", "tool_calls": [
        openai_call("c4", "refuse", json!({})),
    ]}}]});
    let outcome = world
        .executor
        .execute_raw(ModelApi::OpenAiChat, &turn, &ctx, None)
        .await
        .unwrap();
    assert_eq!(outcome.stopped_by, None);
    assert!(!outcome.finish_round);
    assert_eq!(
        world
            .engine
            .session_state(&ctx.session_id)
            .await
            .unwrap()
            .rounds_ended,
        1
    );
}

#[tokio::test]
async fn a_pause_in_the_same_batch_decides_how_it_ends() {
    let world = World::new(BuiltinConfig::default()).await;
    world
        .registry
        .register_provider(std::sync::Arc::new(Stoppers));
    let ctx = ctx("s1");
    let turn = json!({"choices": [{"message": {"role": "assistant", "tool_calls": [
        openai_call("c1", "wrap_up", json!({})),
        openai_call("c2", "wait", json!({"seconds": 10})),
        openai_call("c3", "weather", json!({})),
    ]}}]});
    let outcome = world
        .executor
        .execute_raw(ModelApi::OpenAiChat, &turn, &ctx, None)
        .await
        .unwrap();
    assert_eq!(outcome.paused_by.as_deref(), Some("c2"));
    assert_eq!(outcome.stopped_by, None);
    assert_eq!(outcome.messages[2].status, CallStatus::Skipped);
    assert_eq!(
        world
            .engine
            .session_state(&ctx.session_id)
            .await
            .unwrap()
            .rounds_ended,
        0
    );
}
