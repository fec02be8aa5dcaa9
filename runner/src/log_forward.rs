//! Forwards the runner's `tracing` records to the host in `runner.log_batch` broadcasts, so
//! plugin logs appear in the host's log tagged with the plugin id.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use maitool_protocol::rpc::RpcPeer;
use maitool_protocol::wire::methods::{LogBatchPayload, LogEntry, names};
use parking_lot::Mutex;
use tokio::sync::Notify;
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

/// Records kept while the host is slow to take them; older records are dropped beyond this.
const BUFFER_LIMIT: usize = 4096;
/// Records per broadcast.
const BATCH_SIZE: usize = 256;
const FLUSH_INTERVAL: Duration = Duration::from_millis(100);

/// Handle on the installed forwarding layer.
#[derive(Clone, Debug)]
pub struct LogForwarder {
    shared: Arc<Shared>,
}

#[derive(Debug, Default)]
struct Shared {
    buffer: Mutex<std::collections::VecDeque<LogEntry>>,
    peer: OnceLock<RpcPeer>,
    dropped: AtomicU64,
    /// Told when a record lands in an empty buffer.
    records_waiting: Notify,
}

impl LogForwarder {
    /// Installs the global subscriber: records pass an `RUST_LOG` filter (default `info`) and
    /// are buffered for the host; before the connection exists they go to stderr, which the
    /// host also captures.
    pub fn install() -> LogForwarder {
        let shared = Arc::new(Shared::default());
        let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
        let layer = ForwardLayer {
            shared: shared.clone(),
        };
        let _ = tracing_subscriber::registry()
            .with(filter)
            .with(layer)
            .try_init();
        LogForwarder { shared }
    }

    /// Starts forwarding over `peer`.
    pub fn attach(&self, peer: RpcPeer) {
        if self.shared.peer.set(peer).is_err() {
            return;
        }
        let shared = self.shared.clone();
        // A flush is scheduled by the first record after the last one, not by a clock: a
        // pending timer made every park of the runtime (each call, for a runner answering one
        // call at a time) walk the timer wheel and read the clock, although most runners log
        // nothing between their calls.
        tokio::spawn(async move {
            loop {
                shared.records_waiting.notified().await;
                // Records that arrive meanwhile go out in the same batch.
                tokio::time::sleep(FLUSH_INTERVAL).await;
                if !shared.flush() {
                    break;
                }
            }
        });
    }

    /// Sends whatever is buffered now (used right before the runner exits).
    pub fn flush_now(&self) {
        self.shared.flush();
    }
}

impl Shared {
    /// Sends buffered records; false once the connection is gone.
    fn flush(&self) -> bool {
        let Some(peer) = self.peer.get() else {
            return true;
        };
        if peer.is_closed() {
            return false;
        }
        let entries: Vec<LogEntry> = std::mem::take(&mut *self.buffer.lock()).into();
        let dropped = self.dropped.swap(0, Ordering::Relaxed);
        let mut entries = entries;
        if dropped > 0 {
            entries.insert(
                0,
                entry(
                    Level::WARN,
                    "maitool_runner",
                    format!("{dropped} log records dropped: the host did not keep up"),
                    String::new(),
                ),
            );
        }
        for chunk in entries.chunks(BATCH_SIZE) {
            let batch = LogBatchPayload {
                entries: chunk.to_vec(),
            };
            if peer.broadcast(names::LOG_BATCH, "", &batch).is_err() {
                // Back-pressure: the host is busy; these records are lost rather than blocking.
                self.dropped
                    .fetch_add(chunk.len() as u64, Ordering::Relaxed);
            }
        }
        true
    }

    fn push(&self, record: LogEntry) {
        let forwarding = self.peer.get().is_some_and(|peer| !peer.is_closed());
        // The RPC layer's own records must not travel over the RPC layer (feedback loop).
        if !forwarding || record.logger_name.starts_with("maitool_protocol") {
            eprintln!(
                "[{}] {}: {}",
                level_name(record.level),
                record.logger_name,
                record.message
            );
            return;
        }
        let mut buffer = self.buffer.lock();
        if buffer.len() >= BUFFER_LIMIT {
            buffer.pop_front();
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
        let first = buffer.is_empty();
        buffer.push_back(record);
        drop(buffer);
        if first {
            self.records_waiting.notify_one();
        }
    }
}

struct ForwardLayer {
    shared: Arc<Shared>,
}

tokio::task_local! {
    /// The plugin whose call this task is running: tags the records logged during it.
    static CURRENT_PLUGIN: Arc<str>;
}

/// Runs `work` (a plugin's handler) with its records tagged `plugin_id`.
///
/// A task-local rather than a `tracing` span: a span per call costs a registry slot, a field
/// visit, an enter and exit on every poll and a close, all in the runner's CPU per call
/// (`invoke_runner_cpu_us`), and the id is all this layer reads from it. Like a span, the tag
/// follows the handler's own polls, not tasks it spawns.
pub(crate) fn in_plugin<F: Future>(
    plugin_id: Arc<str>,
    work: F,
) -> impl Future<Output = F::Output> {
    CURRENT_PLUGIN.scope(plugin_id, work)
}

/// Runs synchronous `work` of a plugin (its configuration check) with its records tagged.
pub(crate) fn in_plugin_sync<R>(plugin_id: Arc<str>, work: impl FnOnce() -> R) -> R {
    CURRENT_PLUGIN.sync_scope(plugin_id, work)
}

/// The plugin whose work the current task is running, if any.
pub(crate) fn current_plugin() -> Option<Arc<str>> {
    CURRENT_PLUGIN.try_with(Arc::clone).ok()
}

std::thread_local! {
    /// The plugin whose blocking work this pool thread is running (see `run_blocking`).
    static THREAD_PLUGIN: std::cell::RefCell<Option<Arc<str>>> = const { std::cell::RefCell::new(None) };
}

/// Runs `work` on this (blocking-pool) thread with its records tagged `plugin`.
pub(crate) fn on_thread_for<R>(plugin: Option<Arc<str>>, work: impl FnOnce() -> R) -> R {
    struct Reset(Option<Arc<str>>);
    impl Drop for Reset {
        fn drop(&mut self) {
            let previous = self.0.take();
            THREAD_PLUGIN.with(|slot| *slot.borrow_mut() = previous);
        }
    }
    let previous = THREAD_PLUGIN.with(|slot| std::mem::replace(&mut *slot.borrow_mut(), plugin));
    let _reset = Reset(previous);
    work()
}

/// The plugin tag of a record logged here and now: the task's, else the blocking thread's.
fn plugin_here() -> Option<Arc<str>> {
    current_plugin().or_else(|| THREAD_PLUGIN.with(|slot| slot.borrow().clone()))
}

/// Reports a panic as one record, at error level, tagged with the plugin whose code
/// panicked: `panicked at FILE:LINE:COL: MESSAGE`, with the backtrace (when `RUST_BACKTRACE`
/// asks for one) in the record's exception text rather than a record per line. Without this
/// hook, Rust's default one writes several lines to stderr, which the host reads as a record
/// each.
pub(crate) fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let message = crate::serve::panic_message(info.payload());
        let location = info
            .location()
            .map(|l| format!(" at {}:{}:{}", l.file(), l.line(), l.column()))
            .unwrap_or_default();
        let backtrace = std::backtrace::Backtrace::capture();
        let backtrace = match backtrace.status() {
            std::backtrace::BacktraceStatus::Captured => Some(backtrace.to_string()),
            _ => None,
        };
        tracing::error!(
            target: "maitool_runner::panic",
            backtrace = backtrace.as_deref(),
            "panicked{location}: {message}"
        );
    }));
}

impl<S: Subscriber> Layer<S> for ForwardLayer {
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let mut visitor = FieldCollector::default();
        event.record(&mut visitor);
        let plugin_id = visitor
            .plugin_id
            .clone()
            .or_else(|| plugin_here().map(|id| id.to_string()));
        let target = event.metadata().target();
        let logger = match &plugin_id {
            Some(id) if !target.starts_with("maitool_") => format!("plugin.{id}"),
            _ => target.to_owned(),
        };
        let mut record = entry(
            *event.metadata().level(),
            &logger,
            visitor.message,
            visitor.fields,
        );
        record.plugin_id = plugin_id.unwrap_or_default();
        record.exception_text = visitor.backtrace;
        self.shared.push(record);
    }
}

fn entry(level: Level, logger: &str, message: String, fields: String) -> LogEntry {
    let fields = fields.trim_end();
    let message = if fields.is_empty() {
        message
    } else {
        format!("{message} {fields}")
    };
    LogEntry {
        timestamp_ms: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0),
        level: python_level(level),
        logger_name: logger.to_owned(),
        message,
        exception_text: String::new(),
        plugin_id: String::new(),
    }
}

/// Python `logging` levels, which MaiBot's `LogEntry.level` uses.
fn python_level(level: Level) -> i32 {
    match level {
        Level::TRACE => 5,
        Level::DEBUG => 10,
        Level::INFO => 20,
        Level::WARN => 30,
        Level::ERROR => 40,
    }
}

fn level_name(level: i32) -> &'static str {
    match level {
        ..=5 => "TRACE",
        6..=10 => "DEBUG",
        11..=20 => "INFO",
        21..=30 => "WARN",
        _ => "ERROR",
    }
}

#[derive(Default)]
struct FieldCollector {
    message: String,
    fields: String,
    plugin_id: Option<String>,
    /// A `backtrace` field: the record's exception text, not part of its message.
    backtrace: String,
}

impl Visit for FieldCollector {
    fn record_str(&mut self, field: &Field, value: &str) {
        match field.name() {
            "message" => self.message.push_str(value),
            "plugin_id" => self.plugin_id = Some(value.to_owned()),
            "backtrace" => self.backtrace.push_str(value),
            name => {
                let _ = write!(self.fields, "{name}={value:?} ");
            }
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        match field.name() {
            "message" => {
                let _ = write!(self.message, "{value:?}");
            }
            "plugin_id" => self.plugin_id = Some(format!("{value:?}").trim_matches('"').to_owned()),
            name => {
                let _ = write!(self.fields, "{name}={value:?} ");
            }
        }
    }
}
