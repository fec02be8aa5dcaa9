//! Captures the host's `tracing` records so tests can assert on what an operator would read.

use std::fmt::Write as _;
use std::sync::{Mutex, OnceLock};

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Subscriber};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

static RECORDS: OnceLock<Mutex<Vec<String>>> = OnceLock::new();

fn records() -> &'static Mutex<Vec<String>> {
    RECORDS.get_or_init(|| Mutex::new(Vec::new()))
}

/// Installs the capturing subscriber (once per test process). Records at debug and above from
/// maitool are kept; `RUST_LOG` additionally prints them to the test output.
pub fn capture() {
    install(
        "maitool=debug,maitool_host=debug,maitool_protocol=info",
        false,
    );
}

/// Like [`capture`], but keeps records of every crate at every level, down to trace (rmcp,
/// HTTP clients, ...), plus a `SPAN target: name field=value ...` line for each span's
/// fields, which a log formatter would print with every record inside it. For tests that
/// assert something never reaches a log. Whichever of the two runs first in a test process
/// decides.
pub fn capture_everything() {
    install("trace", true);
}

fn install(filter: &str, spans: bool) {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        let printer = std::env::var("RUST_LOG").ok().map(|filter| {
            tracing_subscriber::fmt::layer()
                .with_test_writer()
                .with_filter(EnvFilter::new(filter))
        });
        let _ = tracing_subscriber::registry()
            .with(Capture { spans }.with_filter(EnvFilter::new(filter)))
            .with(printer)
            .try_init();
    });
}

/// Every captured line (`LEVEL target: message field=value ...`).
pub fn lines() -> Vec<String> {
    records().lock().map(|r| r.clone()).unwrap_or_default()
}

/// Waits up to `limit` for a captured line containing every needle.
pub async fn wait_for(needles: &[&str], limit: std::time::Duration) -> Option<String> {
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        if let Some(line) = lines()
            .into_iter()
            .find(|l| needles.iter().all(|n| l.contains(n)))
        {
            return Some(line);
        }
        if tokio::time::Instant::now() >= deadline {
            return None;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

struct Capture {
    spans: bool,
}

impl Capture {
    fn push(line: String) {
        if let Ok(mut records) = records().lock() {
            records.push(line);
        }
    }
}

impl<S: Subscriber> Layer<S> for Capture {
    fn on_new_span(&self, attrs: &Attributes<'_>, _id: &Id, _ctx: Context<'_, S>) {
        if self.spans {
            let metadata = attrs.metadata();
            let mut line = format!("SPAN {}: {} ", metadata.target(), metadata.name());
            attrs.record(&mut LineVisitor(&mut line));
            Self::push(line);
        }
    }

    fn on_record(&self, _id: &Id, values: &Record<'_>, _ctx: Context<'_, S>) {
        if self.spans {
            let mut line = "SPAN record: ".to_owned();
            values.record(&mut LineVisitor(&mut line));
            Self::push(line);
        }
    }

    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let mut line = format!(
            "{} {}: ",
            event.metadata().level(),
            event.metadata().target()
        );
        event.record(&mut LineVisitor(&mut line));
        Self::push(line);
    }
}

struct LineVisitor<'a>(&'a mut String);

impl Visit for LineVisitor<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.0, "{value:?} ");
        } else {
            let _ = write!(self.0, "{}={value:?} ", field.name());
        }
    }
}
