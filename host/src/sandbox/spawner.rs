//! Where a sandboxed runner's processes are born: a thread of the host that waits inside a
//! pids cgroup of the runner's, so that each launch starts in it.
//!
//! On cgroup v1, moving a task into a cgroup takes a kernel lock whose writer first waits for
//! an RCU grace period when no move came shortly before: milliseconds to tens of them on a
//! virtual machine. A child that joined its cgroup between `fork` and `exec` put that wait
//! into every restart. A forked process starts in the cgroup of the thread that forked it,
//! with no move, and cgroup v1 lets each thread of a process sit in its own cgroup (`tasks`).
//! So each runner has a thread that waits in the runner's cgroup and forks its launches there.
//!
//! When a launch ends, what is left in its cgroup is killed; once the cgroup counts only the
//! thread again, the next launch starts in it, clean, with no move. Only when something is
//! still there (a process that is slow to die) does the thread move into a fresh cgroup,
//! leaving the old one to be removed once empty. The thread counts against the limit of its
//! cgroup, which is set one above the runner's. It forks with the Tokio runtime of the caller
//! entered, so the child is reaped as any `tokio::process::Child`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use tokio::process::{Child, Command};

use super::processes::{CgroupLaunch, make_cgroup};

/// How long an ended launch's killed processes may take to leave its cgroup before the next
/// launch gets a fresh one instead.
const SETTLE: Duration = Duration::from_millis(20);

/// A runner's spawner, kept across its launches (cheap to clone). The thread starts at the
/// first launch that limits processes through a pids cgroup and ends when the last clone is
/// dropped.
#[derive(Debug, Clone)]
pub(crate) struct Spawner {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    runner: String,
    worker: Mutex<Option<Worker>>,
}

#[derive(Debug)]
struct Worker {
    jobs: mpsc::Sender<Job>,
    /// Why the thread stopped, once it has.
    stopped: Arc<Mutex<Option<String>>>,
    /// The thread; it returns the cgroup it waited in, removed once it has exited.
    thread: std::thread::JoinHandle<Option<CgroupLaunch>>,
}

enum Job {
    /// Fork `command` in the thread's cgroup, limited to `max` processes.
    Spawn {
        command: Box<Command>,
        max: u64,
        runtime: tokio::runtime::Handle,
        reply: tokio::sync::oneshot::Sender<std::io::Result<(Child, PathBuf)>>,
    },
    /// The launch started in this cgroup has ended.
    Ended(PathBuf),
}

impl Worker {
    /// Ends the thread and removes the cgroup it waited in.
    fn end(self) {
        drop(self.jobs);
        if let Ok(room) = self.thread.join() {
            drop(room);
        }
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        if let Some(worker) = self.worker.get_mut().take() {
            worker.end();
        }
    }
}

impl Spawner {
    /// The spawner of runner `runner`; no thread yet.
    pub(crate) fn new(runner: &str) -> Self {
        Self {
            inner: Arc::new(Inner {
                runner: runner.to_owned(),
                worker: Mutex::new(None),
            }),
        }
    }

    /// Makes sure a thread waits in a cgroup under `parent` for a runner of at most `max`
    /// processes, starting one (and waiting for its move) if there is none or the last one
    /// stopped. An error means the host cannot place threads in cgroups there.
    pub(crate) fn ready(&self, parent: &Path, max: u64) -> std::io::Result<()> {
        let mut worker = self.inner.worker.lock();
        if let Some(running) = worker.as_ref()
            && running.stopped.lock().is_none()
        {
            return Ok(());
        }
        if let Some(stopped) = worker.take() {
            stopped.end();
        }
        let (jobs, queue) = mpsc::channel();
        let (placed_tx, placed) = mpsc::channel();
        let stopped = Arc::new(Mutex::new(None));
        let thread_stopped = stopped.clone();
        let (parent, runner) = (parent.to_path_buf(), self.inner.runner.clone());
        let thread = std::thread::Builder::new()
            .name(format!("spawn-{runner}"))
            .spawn(move || match enter_fresh(&parent, &runner, max) {
                Ok(first) => {
                    let _ = placed_tx.send(Ok(()));
                    let mut room = Room {
                        parent,
                        runner,
                        here: first,
                        max,
                        occupied: false,
                    };
                    let outcome = room.serve(queue);
                    *thread_stopped.lock() = Some(match &outcome {
                        Ok(()) => "the runner's supervisor ended".to_owned(),
                        Err(why) => why.clone(),
                    });
                    outcome.ok().map(|()| room.here)
                }
                Err(err) => {
                    let _ = placed_tx.send(Err(err));
                    None
                }
            })?;
        let placed = placed.recv().unwrap_or_else(|_| {
            Err(std::io::Error::other(
                "the spawner thread ended before its first move",
            ))
        });
        if let Err(err) = placed {
            let _ = thread.join();
            return Err(err);
        }
        *worker = Some(Worker {
            jobs,
            stopped,
            thread,
        });
        Ok(())
    }

    /// Starts `command` from the thread, in the cgroup it waits in, limited to `max`
    /// processes; returns the child and that cgroup's folder, to hand to [`Self::ended`]
    /// when the launch ends.
    pub(crate) async fn spawn(
        &self,
        command: Command,
        max: u64,
    ) -> std::io::Result<(Child, PathBuf)> {
        let (reply, answer) = tokio::sync::oneshot::channel();
        let job = Job::Spawn {
            command: Box::new(command),
            max,
            runtime: tokio::runtime::Handle::current(),
            reply,
        };
        let stopped = self.send(job);
        let gone = |stopped: Option<Arc<Mutex<Option<String>>>>| {
            let why = stopped
                .and_then(|s| s.lock().clone())
                .unwrap_or_else(|| "it was not started".into());
            std::io::Error::other(format!(
                "the thread that starts runner {} in its pids cgroup stopped: {why}",
                self.inner.runner
            ))
        };
        match stopped {
            Ok(stopped) => answer.await.map_err(|_| gone(Some(stopped)))?,
            Err(stopped) => Err(gone(stopped)),
        }
    }

    /// The launch started in cgroup `dir` has ended: what is left in it is killed, and the
    /// next launch starts in it once it is empty (or in a fresh one).
    pub(crate) fn ended(&self, dir: PathBuf) {
        let _ = self.send(Job::Ended(dir));
    }

    /// Queues `job`; Ok with the thread's stop reason cell, or Err when it is gone.
    #[allow(clippy::type_complexity)]
    fn send(
        &self,
        job: Job,
    ) -> Result<Arc<Mutex<Option<String>>>, Option<Arc<Mutex<Option<String>>>>> {
        let worker = self.inner.worker.lock();
        match worker.as_ref() {
            Some(worker) if worker.jobs.send(job).is_ok() => Ok(worker.stopped.clone()),
            Some(worker) => Err(Some(worker.stopped.clone())),
            None => Err(None),
        }
    }
}

/// The thread's state: the cgroup it waits in, and whether a launch runs there.
struct Room {
    parent: PathBuf,
    runner: String,
    here: CgroupLaunch,
    max: u64,
    occupied: bool,
}

impl Room {
    /// Serves jobs until every sender is gone (Ok) or the thread cannot find a clean cgroup.
    fn serve(&mut self, queue: mpsc::Receiver<Job>) -> Result<(), String> {
        while let Ok(job) = queue.recv() {
            match job {
                Job::Spawn {
                    mut command,
                    max,
                    runtime,
                    reply,
                } => {
                    if let Err(why) = self.ready_for(max) {
                        let _ = reply.send(Err(std::io::Error::other(why.clone())));
                        return Err(why);
                    }
                    let child = {
                        let _entered = runtime.enter();
                        command.spawn()
                    };
                    self.occupied = child.is_ok();
                    let _ = reply.send(child.map(|child| (child, self.here.dir().to_path_buf())));
                }
                // Whether the cgroup is clean again is seen at the next spawn, which only
                // waits if the killed processes have not left yet.
                Job::Ended(dir) if dir == self.here.dir() => self.here.kill_leftovers(),
                // A cgroup the thread has left: its drop killed what was in it.
                Job::Ended(_) => {}
            }
        }
        Ok(())
    }

    /// Makes the thread's cgroup fit a launch of `max` processes: a fresh one if a launch's
    /// processes are still in this one.
    fn ready_for(&mut self, max: u64) -> Result<(), String> {
        if self.occupied && !self.settled() {
            self.here = enter_fresh(&self.parent, &self.runner, max)
                .map_err(|err| format!("cannot move into a fresh pids cgroup: {err}"))?;
            self.max = max;
        }
        if max != self.max {
            self.max = max;
            if let Err(err) = self.here.set_max(max + 1) {
                tracing::debug!(runner = %self.runner, "cannot change the pids limit: {err}");
            }
        }
        self.occupied = false;
        Ok(())
    }

    /// Whether the cgroup counts only this thread, waiting up to [`SETTLE`] for killed
    /// processes to finish leaving.
    fn settled(&self) -> bool {
        let deadline = Instant::now() + SETTLE;
        loop {
            if self.here.tasks() == Some(1) {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

/// Makes a fresh cgroup for a runner of `max` processes (one more for this thread) and moves
/// the calling thread into it.
fn enter_fresh(parent: &Path, runner: &str, max: u64) -> std::io::Result<CgroupLaunch> {
    let cgroup = make_cgroup(parent, runner, max + 1)?;
    let tid = nix::unistd::gettid();
    std::fs::write(cgroup.dir().join("tasks"), tid.to_string())?;
    Ok(cgroup)
}
