//! The host's log records as the web console shows them: a `tracing` layer that keeps the
//! latest records and broadcasts each new one to the pages following the log.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;
use tokio::sync::broadcast;
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::{Context, Layer};

/// Records kept for a page that opens the log.
const KEPT: usize = 500;

/// One log record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLine {
    /// Milliseconds since the Unix epoch.
    pub at_ms: u64,
    /// `ERROR`, `WARN`, `INFO`, `DEBUG` or `TRACE`.
    pub level: Level,
    /// The record's target (`maitool::plugin`, a module path).
    pub target: String,
    /// The plugin it is about (`plugin_id` or `plugin` field), if any.
    pub plugin: Option<String>,
    /// The runner it is about, if any.
    pub runner: Option<String>,
    /// The message, then the other fields as `key=value` (secrets redacted).
    pub text: String,
}

/// The latest records and the channel new ones go out on.
#[derive(Debug)]
pub struct LogFeed {
    kept: Mutex<VecDeque<LogLine>>,
    sender: broadcast::Sender<LogLine>,
}

impl LogFeed {
    fn new() -> LogFeed {
        LogFeed {
            kept: Mutex::new(VecDeque::with_capacity(KEPT)),
            sender: broadcast::channel(1024).0,
        }
    }

    /// The feed of this process (what [`layer`] writes into).
    pub fn global() -> Arc<LogFeed> {
        static FEED: OnceLock<Arc<LogFeed>> = OnceLock::new();
        FEED.get_or_init(|| Arc::new(LogFeed::new())).clone()
    }

    /// The latest records, oldest first.
    pub fn recent(&self) -> Vec<LogLine> {
        self.kept.lock().iter().cloned().collect()
    }

    /// New records from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<LogLine> {
        self.sender.subscribe()
    }

    fn push(&self, line: LogLine) {
        let mut kept = self.kept.lock();
        if kept.len() == KEPT {
            kept.pop_front();
        }
        kept.push_back(line.clone());
        drop(kept);
        // No page follows the log: nothing to send.
        let _ = self.sender.send(line);
    }
}

/// The layer that feeds [`LogFeed::global`].
pub fn layer() -> FeedLayer {
    FeedLayer(LogFeed::global())
}

/// A `tracing` layer that writes every record into [`LogFeed::global`].
#[derive(Debug)]
pub struct FeedLayer(Arc<LogFeed>);

impl<S: Subscriber> Layer<S> for FeedLayer {
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let mut fields = Fields::default();
        event.record(&mut fields);
        let mut text = fields.message;
        text.push_str(&fields.rest);
        let at_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        self.0.push(LogLine {
            at_ms,
            level: *event.metadata().level(),
            target: event.metadata().target().to_owned(),
            plugin: fields.plugin,
            runner: fields.runner,
            text,
        });
    }
}

#[derive(Default)]
struct Fields {
    message: String,
    rest: String,
    plugin: Option<String>,
    runner: Option<String>,
}

impl Fields {
    fn field(&mut self, name: &str, value: String) {
        match name {
            "message" => self.message = value,
            "plugin_id" | "plugin" => self.plugin = Some(value),
            "runner" => self.runner = Some(value),
            _ if crate::plugin_config::is_secret_key(name) => {
                let _ = write!(self.rest, " {name}={}", crate::plugin_config::REDACTED);
            }
            _ => {
                let _ = write!(self.rest, " {name}={value}");
            }
        }
    }
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.field(field.name(), value.to_owned());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.field(field.name(), format!("{value:?}"));
    }
}
