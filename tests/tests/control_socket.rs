//! `maitool serve`'s control socket and metrics endpoint against careless and hostile
//! clients, through the real binary: connections that never send, a descriptor limit, paths
//! that are not sockets, a second serve.

mod ops_support;

use std::time::Duration;

use ops_support::Fixture;
use serde_json::Value;

/// The pid of every runner, by name, from `status --json`.
fn runner_pids(status: &Value) -> Vec<(String, u64)> {
    status["runners"]
        .as_array()
        .expect("runners")
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_owned(),
                r["pid"].as_u64().expect("a ready runner has a pid"),
            )
        })
        .collect()
}

/// Opens `count` connections at once and keeps them; those the kernel would not even queue
/// within a second are left out.
async fn hold_connections<S, F>(count: usize, connect: impl Fn() -> F) -> Vec<S>
where
    F: std::future::Future<Output = std::io::Result<S>>,
{
    let attempts = (0..count).map(|_| tokio::time::timeout(Duration::from_secs(1), connect()));
    futures::future::join_all(attempts)
        .await
        .into_iter()
        .filter_map(|attempt| attempt.ok()?.ok())
        .collect()
}

#[test]
fn serve_answers_with_400_idle_connections_on_each_socket_at_a_256_descriptor_limit() {
    let fixture = Fixture::new(&["dice"], "", "");
    let serve = fixture.serve_under(
        &["prlimit", "--nofile=256:256", "--"],
        &["--metrics", "127.0.0.1:0"],
    );
    let endpoint = serve.wait_for_log(|line| {
        line["fields"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("serving Prometheus metrics"))
    });
    let metrics: std::net::SocketAddr = endpoint["fields"]["address"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let before = runner_pids(&fixture.json(&["status", "--json"]));

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let control = fixture.control();
    let (idle_control, idle_metrics) = runtime.block_on(async {
        let control = hold_connections(400, || tokio::net::UnixStream::connect(&control)).await;
        let metrics = hold_connections(400, || tokio::net::TcpStream::connect(metrics)).await;
        (control, metrics)
    });
    eprintln!(
        "holding {} idle control and {} idle metrics connections",
        idle_control.len(),
        idle_metrics.len()
    );

    // The same runners answer: serve itself, not a one-shot host of the CLI's own.
    let status = fixture.json(&["status", "--json"]);
    assert_eq!(runner_pids(&status), before, "{status}");
    let sum = fixture.json(&[
        "call",
        "calculate",
        "--args",
        r#"{"a": 20, "b": 22, "op": "add"}"#,
        "--json",
    ]);
    assert_eq!(sum["content"], "42", "{sum}");

    drop((idle_control, idle_metrics));
    let lines = serve.stop();
    let exhausted: Vec<&String> = lines
        .iter()
        .filter(|line| line.contains("Too many open files"))
        .collect();
    assert!(
        exhausted.is_empty(),
        "serve ran out of descriptors {} times, first: {}",
        exhausted.len(),
        exhausted[0]
    );
}
