//! The plugin KV store on a real file, shared with another connection as a second process would.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rusqlite::Connection;
use serde_json::json;

use super::KvStore;

#[tokio::test]
async fn values_survive_a_reopen_and_stay_per_plugin() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/kv.sqlite3");
    let kv = KvStore::open(&path).await.unwrap();
    kv.set("a", "k1", &json!({"n": 1})).await.unwrap();
    kv.set("a", "k_2", &json!("two")).await.unwrap();
    kv.set("b", "k1", &json!(true)).await.unwrap();
    drop(kv);

    let kv = KvStore::open(&path).await.unwrap();
    assert_eq!(kv.get("a", "k1").await.unwrap(), Some(json!({"n": 1})));
    assert_eq!(kv.get("b", "k1").await.unwrap(), Some(json!(true)));
    // `_` is a LIKE wildcard: the prefix must match it literally.
    assert_eq!(kv.list("a", "k_").await.unwrap(), vec!["k_2"]);
    assert!(kv.delete("a", "k1").await.unwrap());
    assert!(!kv.delete("a", "k1").await.unwrap());
    assert_eq!(kv.get("a", "k1").await.unwrap(), None);
}

/// `maitool serve` and an in-process `maitool` open the same file; the default runtime has one
/// thread, so an open that waits for the other's lock must not stop everything else.
#[tokio::test]
async fn an_open_waits_for_another_connections_lock_without_blocking_the_runtime() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kv.sqlite3");
    let holder = Connection::open(&path).unwrap();
    holder
        .execute_batch("CREATE TABLE other (x); BEGIN EXCLUSIVE;")
        .unwrap();
    let (release, released) = std::sync::mpsc::channel::<()>();
    let holding = std::thread::spawn(move || {
        released.recv().unwrap();
        holder.execute_batch("COMMIT").unwrap();
    });

    let ticks = Arc::new(AtomicUsize::new(0));
    let ticker = tokio::spawn({
        let ticks = Arc::clone(&ticks);
        async move {
            loop {
                tokio::time::sleep(Duration::from_millis(5)).await;
                ticks.fetch_add(1, Ordering::Relaxed);
            }
        }
    });
    let open = tokio::spawn({
        let path = path.clone();
        async move { KvStore::open(&path).await }
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!open.is_finished(), "the open waits while the lock is held");
    assert!(
        ticks.load(Ordering::Relaxed) >= 10,
        "other tasks ran meanwhile ({} ticks)",
        ticks.load(Ordering::Relaxed)
    );

    release.send(()).unwrap();
    holding.join().unwrap();
    let kv = open
        .await
        .unwrap()
        .expect("the open succeeds once the lock is released");
    ticker.abort();
    kv.set("p", "k", &json!(1)).await.unwrap();
    assert_eq!(kv.get("p", "k").await.unwrap(), Some(json!(1)));
}

#[tokio::test]
async fn a_store_that_cannot_be_opened_says_where_and_keeps_the_cause() {
    let temp = tempfile::tempdir().unwrap();
    // A file where the store's directory should be.
    let blocker = temp.path().join("file");
    std::fs::write(&blocker, b"x").unwrap();
    let err = KvStore::open(&blocker.join("data").join("kv.sqlite3"))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("cannot create {}", blocker.join("data").display())
    );
    crate::error_text::io_source(&err);
    // A directory where the file should be: SQLite's own error is the cause.
    let err = KvStore::open(temp.path()).await.unwrap_err();
    assert!(matches!(err, super::KvError::Open { .. }), "{err:?}");
    let cause = std::error::Error::source(&err).expect("the sqlite error is kept");
    assert!(
        cause.downcast_ref::<rusqlite::Error>().is_some(),
        "{cause:?}"
    );
}
