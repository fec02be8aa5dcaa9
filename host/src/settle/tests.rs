use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

use super::SettleGate;

/// What `on_open` was told: 0 not yet, 1 settled, 2 cut short by the bound.
fn recorder() -> (Arc<AtomicU8>, impl FnOnce(bool) + Send + 'static) {
    let told = Arc::new(AtomicU8::new(0));
    let record = told.clone();
    (told, move |cut_short: bool| {
        record.store(if cut_short { 2 } else { 1 }, Ordering::SeqCst)
    })
}

#[tokio::test(start_paused = true)]
async fn opens_when_the_sources_settle_before_the_bound() {
    let (told, on_open) = recorder();
    let gate = SettleGate::spawn(
        tokio::time::sleep(Duration::from_millis(40)),
        Duration::from_secs(5),
        on_open,
    );
    assert!(!gate.is_open());
    let started = tokio::time::Instant::now();
    gate.wait().await;
    assert_eq!(started.elapsed(), Duration::from_millis(40));
    assert!(gate.is_open());
    assert_eq!(told.load(Ordering::SeqCst), 1);
}

#[tokio::test(start_paused = true)]
async fn a_source_that_never_settles_holds_the_gate_no_longer_than_the_bound() {
    let (told, on_open) = recorder();
    let gate = SettleGate::spawn(std::future::pending(), Duration::from_secs(5), on_open);
    let started = tokio::time::Instant::now();
    gate.wait().await;
    assert_eq!(started.elapsed(), Duration::from_secs(5));
    assert_eq!(told.load(Ordering::SeqCst), 2);
    // Later waiters pass at once.
    let again = tokio::time::Instant::now();
    gate.clone().wait().await;
    assert_eq!(again.elapsed(), Duration::ZERO);
}

#[tokio::test]
async fn an_opened_gate_does_not_wait() {
    let gate = SettleGate::opened();
    assert!(gate.is_open());
    tokio::time::timeout(Duration::from_millis(100), gate.wait())
        .await
        .expect("an opened gate passes at once");
}

#[test]
fn a_gate_whose_runtime_stopped_before_it_opened_does_not_hang() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let gate = runtime.block_on(async {
        SettleGate::spawn(std::future::pending(), Duration::from_secs(3600), |_| {})
    });
    drop(runtime);
    let other = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    other.block_on(async {
        tokio::time::timeout(Duration::from_secs(5), gate.wait())
            .await
            .expect("a gate whose task is gone counts as open");
    });
}
