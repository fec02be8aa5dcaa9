use serde_json::json;

use crate::prelude::*;
use crate::testing::{PluginTest, TestError};

/// A handler that records its name in the message's text and goes on.
fn marker(name: &'static str, weight: i64) -> EventHandler {
    EventHandler::new(name, EventType::OnMessage, move |event: Event| async move {
        let text = format!("{}+{name}", event.text().unwrap_or_default());
        Ok(EventOutput::modified(event.message_with_text(text)))
    })
    .weight(weight)
    .intercept_message()
}

#[tokio::test]
async fn waited_handlers_run_by_weight_each_seeing_the_last_change() -> Result<(), TestError> {
    let plugin = Plugin::new("tests.order", "1.0.0")
        .event_handler(marker("low", 1))
        .event_handler(marker("high", 10))
        .event_handler(marker("middle", 5));
    let t = PluginTest::new(plugin).start().await?;
    let message = t.message_dict("hi");
    let result = t.emit(EventType::OnMessage, Some(message)).await?;
    assert!(result.continued);
    let names: Vec<&str> = result.handlers.iter().map(|h| h.name.as_str()).collect();
    assert_eq!(names, ["high", "middle", "low"]);
    let message = result.message.unwrap();
    assert_eq!(message["processed_plain_text"], "hi+high+middle+low");
    assert_eq!(
        message["raw_message"],
        json!([{ "type": "text", "data": "hi+high+middle+low" }])
    );
    Ok(())
}

#[tokio::test]
async fn a_waited_handler_stops_the_message_and_later_ones_do_not_run() -> Result<(), TestError> {
    let filter = EventHandler::new(
        "filter",
        EventType::OnMessagePreProcess,
        |event: Event| async move {
            if event.text().is_some_and(|t| t.contains("spam")) {
                return Ok(EventOutput::stop().with_custom_result(json!("spam")));
            }
            Ok(EventOutput::proceed())
        },
    )
    .weight(100)
    .intercept_message();
    let after = EventHandler::new(
        "after",
        EventType::OnMessagePreProcess,
        |_: Event| async move { Ok(EventOutput::proceed()) },
    )
    .intercept_message();
    let plugin = Plugin::new("tests.filter", "1.0.0")
        .event_handler(after)
        .event_handler(filter);
    let t = PluginTest::new(plugin).start().await?;
    let spam = t
        .emit(
            EventType::OnMessagePreProcess,
            Some(t.message_dict("buy spam")),
        )
        .await?;
    assert!(!spam.continued);
    assert_eq!(spam.stopped_by.as_deref(), Some("filter"));
    assert_eq!(spam.handlers.len(), 1);
    assert_eq!(spam.handlers[0].answer.custom_result, Some(json!("spam")));
    let fine = t
        .emit(
            EventType::OnMessagePreProcess,
            Some(t.message_dict("hello")),
        )
        .await?;
    assert!(fine.continued);
    assert_eq!(fine.handlers.len(), 2);
    Ok(())
}

#[tokio::test]
async fn a_failing_handler_lets_the_message_go_on() -> Result<(), TestError> {
    let fails = EventHandler::new("fails", EventType::OnMessage, |_: Event| async move {
        Err::<EventOutput, _>(ToolError::new("no"))
    })
    .intercept_message();
    let panics = EventHandler::new("panics", EventType::OnMessage, |_: Event| async move {
        if true {
            panic!("boom");
        }
        Ok(EventOutput::stop())
    })
    .intercept_message();
    let plugin = Plugin::new("tests.failing", "1.0.0")
        .event_handler(fails)
        .event_handler(panics);
    let t = PluginTest::new(plugin).start().await?;
    let result = t
        .emit(EventType::OnMessage, Some(t.message_dict("x")))
        .await?;
    assert!(result.continued);
    assert!(result.handlers.iter().all(|h| !h.answer.success));
    // Other events do not reach these handlers.
    let none = t.emit(EventType::OnStart, None).await?;
    assert!(none.handlers.is_empty());
    Ok(())
}

#[tokio::test]
async fn a_handler_not_waited_for_cannot_stop_the_message() -> Result<(), TestError> {
    let observer = EventHandler::new(
        "observer",
        EventType::OnMessage,
        |event: Event| async move {
            event
                .kv()
                .set("seen", &event.text().unwrap_or_default())
                .await?;
            Ok(EventOutput::stop())
        },
    );
    let plugin = Plugin::new("tests.observer", "1.0.0").event_handler(observer);
    let t = PluginTest::new(plugin).grant("kv.*").start().await?;
    let result = t
        .emit(EventType::OnMessage, Some(t.message_dict("seen it")))
        .await?;
    assert!(
        result.continued,
        "only a waited-for handler stops a message"
    );
    assert!(!result.handlers[0].waited);
    assert_eq!(t.kv()["seen"], "seen it");
    Ok(())
}
