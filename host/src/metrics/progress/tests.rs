use parking_lot::Mutex;

use crate::plugin::{RunnerState, RunnerStatus};

use super::{SAMPLE_PERIOD, StartObserver, StartProgress, observe};

fn runner(state: RunnerState) -> RunnerStatus {
    RunnerStatus {
        uptime_seconds: None,
        name: "r".into(),
        executable: "/bin/true".into(),
        pid: None,
        state,
        restart_count: 0,
        last_exit_reason: None,
        environment: None,
        sandbox: None,
        plugins: Vec::new(),
    }
}

#[test]
fn the_line_counts_ready_and_failed_runners_and_mcp_servers() {
    let runners = [
        runner(RunnerState::Ready),
        runner(RunnerState::Starting),
        runner(RunnerState::Failed),
    ];
    let progress = StartProgress::of(&runners, None, 2);
    assert_eq!(
        progress.line(),
        "starting: 1/3 runners ready (1 failed), connecting 2 MCP servers"
    );
    let progress = StartProgress::of(&runners[..2], Some(&[]), 2);
    assert_eq!(
        progress.line(),
        "starting: 1/2 runners ready, 0/2 MCP servers connected"
    );
    assert_eq!(StartProgress::of(&[], None, 0).line(), "starting");
}

/// Records every update; completes the observed work at the `finish_at`-th one.
struct Recorder {
    seen: Mutex<Vec<StartProgress>>,
    finish_at: usize,
    finish: Mutex<Option<tokio::sync::oneshot::Sender<()>>>,
}

impl StartObserver for Recorder {
    fn update(&self, progress: &StartProgress) {
        let mut seen = self.seen.lock();
        seen.push(*progress);
        if seen.len() == self.finish_at
            && let Some(finish) = self.finish.lock().take()
        {
            let _ = finish.send(());
        }
    }
}

#[tokio::test]
async fn work_that_finishes_at_once_reports_nothing_and_slow_work_reports_until_done() {
    let (finish, finished) = tokio::sync::oneshot::channel();
    let recorder = Recorder {
        seen: Mutex::new(Vec::new()),
        finish_at: 3,
        finish: Mutex::new(Some(finish)),
    };
    let sample = || StartProgress {
        runners_total: 1,
        ..StartProgress::default()
    };
    assert_eq!(observe(async { 7 }, Some(&recorder), sample).await, 7);
    assert!(
        recorder.seen.lock().is_empty(),
        "a start shorter than one period showed progress"
    );
    assert_eq!(observe(async { 8 }, None, sample).await, 8);

    let started = std::time::Instant::now();
    observe(finished, Some(&recorder), sample).await.unwrap();
    assert_eq!(recorder.seen.lock().len(), 3);
    assert_eq!(recorder.seen.lock()[0].runners_total, 1);
    assert!(
        started.elapsed() >= SAMPLE_PERIOD * 3,
        "updates came faster than the sample period"
    );
}
