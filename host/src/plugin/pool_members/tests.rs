use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use maitool_protocol::rpc::{
    IncomingMessage, Payload, PeerConfig, RequestHandler, RpcError, RpcPeer,
};
use maitool_protocol::wire::EmptyPayload;

use super::{PoolMember, PoolMembers};
use crate::plugin::live_peer::LivePeer;

/// Never answers: every call made to it stays outstanding.
struct Silent;

impl RequestHandler for Silent {
    fn handle(&self, _: IncomingMessage) -> BoxFuture<'static, Result<Payload, RpcError>> {
        futures::future::pending().boxed()
    }
}

/// A member's connection to a peer that never answers; the far end is returned to keep it
/// open.
fn member(members: &PoolMembers, id: u64) -> (LivePeer, RpcPeer) {
    let (near, far) = tokio::io::duplex(1 << 16);
    let peer = RpcPeer::start(near, Arc::new(Silent), PeerConfig::default());
    let far = RpcPeer::start(far, Arc::new(Silent), PeerConfig::default());
    let (live, _end) = LivePeer::new(peer, true);
    members.add(
        Arc::new(PoolMember::new(
            id,
            format!("m{id}"),
            format!("127.0.0.1:{}", 50000 + id),
            String::new(),
        )),
        live.clone(),
    );
    (live, far)
}

fn outstanding_call(live: &LivePeer) -> tokio::task::JoinHandle<()> {
    let peer = live.peer.clone();
    tokio::spawn(async move {
        let _ = peer
            .call::<_, EmptyPayload>("x", "", &EmptyPayload {}, Duration::from_secs(60))
            .await;
    })
}

#[tokio::test]
async fn a_call_goes_to_the_member_with_the_fewest_calls_outstanding() {
    let members = PoolMembers::new("p".into());
    let (a, _fa) = member(&members, 1);
    let (b, _fb) = member(&members, 2);
    let _calls = [
        outstanding_call(&a),
        outstanding_call(&a),
        outstanding_call(&b),
    ];
    while a.peer.in_flight() < 2 || b.peer.in_flight() < 1 {
        tokio::task::yield_now().await;
    }
    for _ in 0..4 {
        let picked = members.pick_for(None).expect("a member");
        assert_eq!(picked.peer.in_flight(), 1, "picked the busier member");
    }
}

#[tokio::test]
async fn a_draining_or_closed_member_gets_no_call_and_a_waiter_gets_the_next_member() {
    let members = Arc::new(PoolMembers::new("p".into()));
    let (a, _fa) = member(&members, 1);
    let (b, _fb) = member(&members, 2);
    let first = members.members.read()[0].member.clone();
    members.drain(&first);
    assert!(first.is_draining());
    for _ in 0..4 {
        assert!(!members.pick_for(None).unwrap().peer.is_closed());
    }
    assert_eq!(members.available(), 1);
    b.peer.close();
    assert!(
        members.pick_for(None).is_none(),
        "a closed and a draining member"
    );
    drop(a);
    let waiter = {
        let members = members.clone();
        tokio::spawn(async move {
            members
                .wait_pick(None, tokio::time::Instant::now() + Duration::from_secs(10))
                .await
                .is_some()
        })
    };
    tokio::time::sleep(Duration::from_millis(20)).await;
    let (_c, _fc) = member(&members, 3);
    assert!(waiter.await.unwrap(), "the waiting call got the new member");
    members.remove(3);
    let none = members
        .wait_pick(
            None,
            tokio::time::Instant::now() + Duration::from_millis(20),
        )
        .await;
    assert!(
        none.is_none(),
        "no member left: the wait ends at its deadline"
    );
}
