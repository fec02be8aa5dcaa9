use std::sync::Mutex;
use std::time::Duration;

use super::*;

#[derive(Default)]
struct Steps(Mutex<Vec<String>>);

impl PrepareObserver for Steps {
    fn step(&self, step: &str) {
        self.0.lock().unwrap().push(step.to_owned());
    }
    fn output(&self, _line: &str) {}
}

#[test]
fn the_lock_file_sits_beside_the_venv() {
    assert_eq!(
        lock_path(Path::new("/data/maibot-venv/maibot")),
        Path::new("/data/maibot-venv/maibot.lock")
    );
}

#[tokio::test]
async fn a_second_holder_waits_for_the_first_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let venv = dir.path().join("nested/venv");
    let first = lock(&venv, &super::super::observer::Silent).await.unwrap();
    let steps = std::sync::Arc::new(Steps::default());
    let waiter = {
        let venv = venv.clone();
        let steps = steps.clone();
        tokio::spawn(async move { lock(&venv, &*steps).await.map(|_| ()) })
    };
    // The waiter said it waits, and has not got the lock while the first holds it.
    eventually(|| !steps.0.lock().unwrap().is_empty()).await;
    assert!(steps.0.lock().unwrap()[0].contains("waiting for another maitool"));
    assert!(!waiter.is_finished());
    drop(first);
    tokio::time::timeout(Duration::from_secs(10), waiter)
        .await
        .expect("the waiter gets the lock once it is released")
        .unwrap()
        .unwrap();
}

pub(super) async fn eventually(mut done: impl FnMut() -> bool) {
    for _ in 0..500 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("never happened");
}
