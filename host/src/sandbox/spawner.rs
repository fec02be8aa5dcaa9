//! Where a sandboxed runner's processes are born: a thread of the host that waits inside the
//! pids cgroup of the runner's next launch, so that the runner's process starts in it.
//!
//! On cgroup v1, moving a task into a cgroup takes a kernel lock whose writer first waits for
//! an RCU grace period when no move came shortly before: milliseconds to tens of them on a
//! virtual machine. A child that joined its cgroup between `fork` and `exec` put that wait
//! into every restart. A forked process starts in the cgroup of the thread that forked it,
//! with no move, and cgroup v1 lets each thread of a process sit in its own cgroup (`tasks`).
//! So each runner has a thread that, right after a spawn and while the runner starts, moves
//! itself into a fresh cgroup and waits there to fork the next launch.
//!
//! The thread counts against the limit of the cgroup it waits in, which is set one above the
//! runner's own and lowered to it once the thread has left. It forks with the Tokio runtime
//! of the caller entered, so the child is reaped as any `tokio::process::Child`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc;

use parking_lot::Mutex;
use tokio::process::{Child, Command};

use super::processes::{CgroupLaunch, make_cgroup};

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

impl Worker {
    /// Ends the thread and removes the cgroup it waited in.
    fn end(self) {
        drop(self.jobs);
        // A moving thread finishes its move first; then it has left every cgroup of ours.
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

struct Job {
    command: Command,
    max: u64,
    runtime: tokio::runtime::Handle,
    reply: tokio::sync::oneshot::Sender<(std::io::Result<Child>, CgroupLaunch)>,
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

    /// Makes sure a thread waits in a fresh cgroup under `parent` for a runner of at most
    /// `max` processes, starting one (and waiting for its first move) if there is none or
    /// the last one stopped. An error means the host cannot place threads in cgroups there.
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
                    serve(parent, runner, first, max, queue, thread_stopped)
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
    /// processes; the cgroup is the launch's from then on.
    pub(crate) async fn spawn(
        &self,
        command: Command,
        max: u64,
    ) -> std::io::Result<(Child, CgroupLaunch)> {
        let (reply, answer) = tokio::sync::oneshot::channel();
        let job = Job {
            command,
            max,
            runtime: tokio::runtime::Handle::current(),
            reply,
        };
        let (sent, stopped) = {
            let worker = self.inner.worker.lock();
            match worker.as_ref() {
                Some(worker) => (worker.jobs.send(job).is_ok(), worker.stopped.clone()),
                None => (false, Arc::new(Mutex::new(None))),
            }
        };
        let gone = || {
            let why = stopped
                .lock()
                .clone()
                .unwrap_or_else(|| "it was not started".into());
            std::io::Error::other(format!(
                "the thread that starts runner {} in its pids cgroup stopped: {why}",
                self.inner.runner
            ))
        };
        if !sent {
            return Err(gone());
        }
        let (child, cgroup) = answer.await.map_err(|_| gone())?;
        Ok((child?, cgroup))
    }
}

/// The thread's loop: fork each job's command where the thread is, hand that cgroup over with
/// the child, and move on into a fresh one. Returns the cgroup it waited in last, for its
/// owner to remove once the thread is gone.
fn serve(
    parent: PathBuf,
    runner: String,
    first: CgroupLaunch,
    mut max: u64,
    queue: mpsc::Receiver<Job>,
    stopped: Arc<Mutex<Option<String>>>,
) -> Option<CgroupLaunch> {
    let mut here = first;
    while let Ok(mut job) = queue.recv() {
        if job.max != max {
            max = job.max;
            if let Err(err) = here.set_max(max + 1) {
                tracing::debug!(runner = %runner, "cannot change the pids limit: {err}");
            }
        }
        let child = {
            let _entered = job.runtime.enter();
            job.command.spawn()
        };
        let born_in = here.dir().to_path_buf();
        // The runner starts now; the move below (the slow part) overlaps its start.
        let _ = job.reply.send((child, here));
        here = match enter_fresh(&parent, &runner, max) {
            Ok(next) => next,
            Err(err) => {
                let why = format!("cannot move into a fresh pids cgroup: {err}");
                tracing::warn!(runner = %runner, "{why}; the next launch starts a new thread");
                *stopped.lock() = Some(why);
                return None;
            }
        };
        // The thread has left: the launch's cgroup is the runner's alone (if it is still
        // there: a launch that already ended removed it).
        let _ = std::fs::write(born_in.join("pids.max"), max.to_string());
    }
    *stopped.lock() = Some("the runner's supervisor ended".into());
    Some(here)
}

/// Makes a fresh cgroup for a runner of `max` processes (one more while this thread waits in
/// it) and moves the calling thread into it.
fn enter_fresh(parent: &Path, runner: &str, max: u64) -> std::io::Result<CgroupLaunch> {
    let cgroup = make_cgroup(parent, runner, max + 1)?;
    let tid = nix::unistd::gettid();
    std::fs::write(cgroup.dir().join("tasks"), tid.to_string())?;
    Ok(cgroup)
}
