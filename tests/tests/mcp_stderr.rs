//! A stdio server's stderr goes into the host log, line by line, tagged with the server
//! name. This test binary installs its own subscriber to see the events.

mod mcp_support;

use std::sync::{Arc, Mutex};

use maitool_host::ToolProvider;
use maitool_host::mcp_client::McpServerConfig;
use mcp_support::*;
use tracing::field::{Field, Visit};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::{Context, SubscriberExt};

#[derive(Debug, Clone, Default, PartialEq)]
struct Line {
    server: String,
    message: String,
}

#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<Line>>>);

struct Fields<'a>(&'a mut Line);

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "server" {
            self.0.server = value.to_owned();
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        match field.name() {
            "message" => self.0.message = format!("{value:?}"),
            // `server = %name` arrives as a Display value through `record_debug`.
            "server" => self.0.server = format!("{value:?}"),
            _ => {}
        }
    }
}

impl<S: tracing::Subscriber> Layer<S> for Recorder {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        if event.metadata().target() == "maitool::mcp::server_stderr" {
            let mut line = Line::default();
            event.record(&mut Fields(&mut line));
            self.0.lock().unwrap().push(line);
        }
    }
}

#[tokio::test]
async fn stderr_lines_reach_the_log_with_the_server_name() {
    let recorder = Recorder::default();
    tracing::subscriber::set_global_default(tracing_subscriber::registry().with(recorder.clone()))
        .expect("the only subscriber of this test binary");

    let bin = maitool_e2e::workspace_bin("maitool-example-mcp-server");
    let noisy = McpServerConfig::stdio(
        "noisy",
        "sh",
        [
            "-c".to_owned(),
            format!(
                "printf 'first line\\nsecond line\\n' >&2; exec {}",
                bin.display()
            ),
        ],
    );
    let provider = start(config(vec![noisy])).await;
    wait_until("both stderr lines logged", || {
        recorder.0.lock().unwrap().len() >= 2
    })
    .await;
    let lines = recorder.0.lock().unwrap().clone();
    assert_eq!(
        lines[..2],
        [
            Line {
                server: "noisy".to_owned(),
                message: "first line".to_owned()
            },
            Line {
                server: "noisy".to_owned(),
                message: "second line".to_owned()
            },
        ]
    );
    provider.close().await.unwrap();
}
