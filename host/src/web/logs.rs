//! `GET /logs`: the host's log (the latest records, then live ones over SSE), filtered by
//! plugin and by lowest level.

use std::collections::HashMap;
use std::convert::Infallible;

use axum::extract::{Query, State};
use axum::response::sse::{Event, KeepAlive, Sse};
use futures::{Stream, StreamExt, stream};
use maud::{Markup, html};
use tokio::sync::broadcast::error::RecvError;
use tracing::Level;

use super::Shared;
use super::pages::{layout, urlencode};
use crate::log_feed::{LogFeed, LogLine};

/// What the page shows.
#[derive(Debug, Clone)]
struct Filter {
    plugin: Option<String>,
    /// The least severe level shown.
    level: Level,
}

impl Filter {
    fn of(query: &HashMap<String, String>) -> Filter {
        Filter {
            plugin: query.get("plugin").filter(|p| !p.is_empty()).cloned(),
            level: query
                .get("level")
                .and_then(|l| l.parse().ok())
                .unwrap_or(Level::INFO),
        }
    }

    fn admits(&self, line: &LogLine) -> bool {
        // `Level` orders TRACE as the greatest: "at least as severe" is `<=`.
        line.level <= self.level
            && self
                .plugin
                .as_ref()
                .is_none_or(|plugin| line.plugin.as_ref() == Some(plugin))
    }

    fn query(&self) -> String {
        format!(
            "plugin={}&level={}",
            urlencode(self.plugin.as_deref().unwrap_or("")),
            self.level
        )
    }
}

fn line(record: &LogLine) -> Markup {
    let seconds = record.at_ms / 1000;
    let time = format!(
        "{:02}:{:02}:{:02}.{:03}",
        seconds / 3600 % 24,
        seconds / 60 % 60,
        seconds % 60,
        record.at_ms % 1000
    );
    html! {
        div class={ "log-" (record.level) } {
            (time) " " (record.level) " "
            @if let Some(plugin) = &record.plugin { "[" (plugin) "] " }
            @else if let Some(runner) = &record.runner { "[" (runner) "] " }
            span.muted { (record.target) } " " (record.text)
        }
    }
}

/// `GET /logs?plugin=&level=`.
pub(super) async fn page(
    State(console): State<Shared>,
    Query(query): Query<HashMap<String, String>>,
) -> Markup {
    let filter = Filter::of(&query);
    let plugins: Vec<String> = crate::control::views::plugins(&console.host)
        .into_iter()
        .map(|p| p.id)
        .collect();
    let recent: Vec<LogLine> = LogFeed::global()
        .recent()
        .into_iter()
        .filter(|l| filter.admits(l))
        .collect();
    let events = format!("/logs/events?{}", filter.query());
    layout(
        "Logs",
        html! {
            section {
                h2 { "Logs" }
                form method="get" action="/logs" {
                    "Plugin "
                    select name="plugin" {
                        option value="" { "every plugin and the host" }
                        @for id in &plugins {
                            option value=(id) selected[filter.plugin.as_deref() == Some(id)] { (id) }
                        }
                    }
                    " Level at least "
                    select name="level" {
                        @for level in [Level::ERROR, Level::WARN, Level::INFO, Level::DEBUG, Level::TRACE] {
                            option value=(level) selected[level == filter.level] { (level) }
                        }
                    }
                    " " button type="submit" { "Show" }
                }
                div hx-ext="sse" sse-connect=(events) {
                    div #log-lines .logs sse-swap="log" hx-swap="beforeend" {
                        @for record in &recent { (line(record)) }
                    }
                }
            }
        },
    )
}

/// `GET /logs/events?plugin=&level=`: each new record that passes the filter.
pub(super) async fn events(
    State(console): State<Shared>,
    Query(query): Query<HashMap<String, String>>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let filter = Filter::of(&query);
    let receiver = LogFeed::global().subscribe();
    let stop = console.stop.clone();
    let lines = stream::unfold(receiver, move |mut receiver| {
        let (filter, stop) = (filter.clone(), stop.clone());
        async move {
            loop {
                let record = tokio::select! {
                    _ = stop.cancelled() => return None,
                    record = receiver.recv() => record,
                };
                match record {
                    Ok(record) if filter.admits(&record) => {
                        let event = Event::default().event("log").data(line(&record).into_string());
                        return Some((event, receiver));
                    }
                    Ok(_) => {}
                    Err(RecvError::Lagged(missed)) => {
                        let event = Event::default().event("log").data(
                            html! { div.muted { "(" (missed) " records skipped: the page fell behind)" } }
                                .into_string(),
                        );
                        return Some((event, receiver));
                    }
                    Err(RecvError::Closed) => return None,
                }
            }
        }
    })
    .map(Ok);
    Sse::new(lines).keep_alive(KeepAlive::default())
}
