use std::sync::Arc;

use super::AcceptedLinks;

#[test]
fn ready_while_a_connection_is_counted_and_not_draining() {
    let links = Arc::new(AcceptedLinks::default());
    assert_eq!(
        links.readiness(),
        Err("no host has accepted this member yet".into())
    );
    links.note_failure("connection refused".into());
    let first = links.accepted();
    let second = links.accepted();
    assert_eq!(links.readiness(), Ok(2));
    drop(first);
    assert_eq!(links.readiness(), Ok(1));
    drop(second);
    assert_eq!(
        links.readiness(),
        Err("no host has accepted this member; last attempt: connection refused".into())
    );
    let _again = links.accepted();
    links.set_draining();
    assert_eq!(
        links.readiness(),
        Err("draining: the member takes no new calls".into())
    );
}
