//! `GET /events`: the overview's fragments (and, with `?plugin=ID`, that plugin's), pushed over
//! Server-Sent Events whenever one changes. The host is sampled twice a second; a fragment is
//! sent only when its HTML differs from the one this page last got, so a quiet host sends
//! nothing but keep-alives.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Query, State};
use axum::response::sse::{Event, KeepAlive, Sse};
use futures::{Stream, StreamExt, stream};

use super::views::{self, Snapshot};
use super::{Console, Shared};

/// How often the host is sampled for changes.
const SAMPLE_EVERY: Duration = Duration::from_millis(500);

struct Follow {
    console: Arc<Console>,
    plugin: Option<String>,
    sent: HashMap<&'static str, String>,
    previous: Option<Snapshot>,
    first: bool,
}

/// `GET /events[?plugin=ID]`.
pub(super) async fn events(
    State(console): State<Shared>,
    Query(query): Query<HashMap<String, String>>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let follow = Follow {
        console,
        plugin: query.get("plugin").cloned(),
        sent: HashMap::new(),
        previous: None,
        first: true,
    };
    let updates = stream::unfold(follow, |mut follow| async move {
        loop {
            if !follow.first {
                tokio::select! {
                    _ = follow.console.stop.cancelled() => return None,
                    _ = tokio::time::sleep(SAMPLE_EVERY) => {}
                }
            }
            follow.first = false;
            let changed = follow.changes().await;
            if !changed.is_empty() {
                return Some((stream::iter(changed), follow));
            }
        }
    })
    .flatten()
    .map(Ok);
    Sse::new(updates).keep_alive(KeepAlive::default())
}

impl Follow {
    /// The fragments that differ from what this page has.
    async fn changes(&mut self) -> Vec<Event> {
        let snapshot = Snapshot::of(&self.console.host).await;
        let rates = views::rates(self.previous.as_ref(), &snapshot);
        let mut fragments: Vec<(&'static str, String)> = vec![
            ("runners", views::runners(&snapshot.runners).into_string()),
            (
                "plugins",
                views::plugin_rows(&snapshot.plugins).into_string(),
            ),
            ("tools", views::tools(&snapshot, &rates).into_string()),
            ("mcp", views::mcp(&snapshot.mcp).into_string()),
        ];
        if let Some(id) = &self.plugin
            && let Some(plugin) = snapshot.plugins.iter().find(|p| &p.id == id)
        {
            fragments.push(("plugin", super::pages::detail(plugin).into_string()));
        }
        self.previous = Some(snapshot);
        fragments.retain(|(name, html)| self.sent.get(name) != Some(html));
        fragments
            .into_iter()
            .map(|(name, html)| {
                let event = Event::default().event(name).data(&html);
                self.sent.insert(name, html);
                event
            })
            .collect()
    }
}
