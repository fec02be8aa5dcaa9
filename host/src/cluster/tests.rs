//! What needs no server: the identity's shape and the states a row is shown in. The table
//! itself, written by real `maitool serve` processes, is tested in `tests/tests/cluster.rs`.

use super::{HostIdentity, HostState};

#[test]
fn a_row_is_stale_only_past_the_window_and_otherwise_shows_its_ready_flag() {
    assert_eq!(HostState::of(true, 0, 15_000), HostState::Ready);
    assert_eq!(HostState::of(false, 15_000, 15_000), HostState::Starting);
    assert_eq!(HostState::of(true, 15_001, 15_000), HostState::Stale);
    assert_eq!(HostState::of(false, 60_000, 15_000), HostState::Stale);
    assert_eq!(HostState::of(true, 1, u64::MAX), HostState::Ready);
}

#[test]
fn each_process_gets_an_id_of_its_own_naming_host_and_pid() {
    let first = HostIdentity::of_this_process(None);
    let second = HostIdentity::of_this_process(Some("http://10.0.0.7:8080/mcp".into()));
    assert_ne!(
        first.id, second.id,
        "two identities of one process collided"
    );
    let prefix = format!("{}:{}:", first.hostname, std::process::id());
    assert!(first.id.starts_with(&prefix), "{}", first.id);
    assert_eq!(first.id.len(), prefix.len() + 8, "{}", first.id);
    assert_eq!(first.version, env!("CARGO_PKG_VERSION"));
    assert!(first.started_at_ms > 1_600_000_000_000);
}
