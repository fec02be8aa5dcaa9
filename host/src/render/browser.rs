//! One headless Chromium for one render: started in its own process group with a private
//! profile, connected over DevTools, and ended with its whole group.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use chromiumoxide::Browser;
use futures::StreamExt;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::task::JoinHandle;

use super::RenderError;

/// How long a starting browser may take to offer its DevTools endpoint.
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// Flags for a browser that renders one local page: headless, no GPU, and none of the
/// background connections (updates, sync, QUIC probes) that a closed network refuses many at a
/// time.
const FLAGS: &[&str] = &[
    "--headless",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
    "--mute-audio",
    "--remote-debugging-port=0",
];

/// A started browser and its DevTools connection.
pub(super) struct Running {
    child: Child,
    group: Option<Pid>,
    pub browser: Browser,
    handler: JoinHandle<()>,
    stderr: JoinHandle<()>,
    /// The private directory: the profile, and the page's file.
    dir: tempfile::TempDir,
}

impl Running {
    /// Starts `executable` and connects to it.
    pub async fn start(executable: &Path, allow_network: bool) -> Result<Running, RenderError> {
        let dir = tempfile::Builder::new()
            .prefix("maitool-render-")
            .tempdir()
            .map_err(RenderError::Io)?;
        let mut command = Command::new(executable);
        command
            .args(FLAGS)
            .arg(format!(
                "--user-data-dir={}",
                dir.path().join("profile").display()
            ))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        // Chromium refuses to run its sandbox as root; as anyone else the sandbox stays on.
        if nix::unistd::geteuid().is_root() {
            command.arg("--no-sandbox");
        }
        if !allow_network {
            // Every request, loopback included, goes to a proxy on the discard port that
            // nothing serves: it fails at once. `file:` and `data:` URLs need no proxy.
            command
                .arg("--proxy-server=http://127.0.0.1:9")
                .arg("--proxy-bypass-list=<-loopback>");
        }
        command.arg("about:blank");
        crate::parent_death::kill_with_host(&mut command);
        let mut child = command.spawn().map_err(|source| RenderError::Launch {
            browser: executable.to_path_buf(),
            source,
        })?;
        let group = child.id().map(|id| Pid::from_raw(id as i32));
        let stderr = child.stderr.take().expect("stderr is piped");
        let mut lines = BufReader::new(stderr).lines();
        let endpoint = tokio::time::timeout(START_TIMEOUT, async {
            let mut seen = Vec::new();
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(url) = line.split_whitespace().find(|w| w.starts_with("ws://")) {
                    return Ok(url.to_owned());
                }
                if seen.len() < 5 {
                    seen.push(line);
                }
            }
            Err(seen.join(" | "))
        })
        .await;
        let failed = |detail: String| RenderError::NoEndpoint {
            browser: executable.to_path_buf(),
            detail,
        };
        let endpoint = match endpoint {
            Ok(Ok(url)) => url,
            Ok(Err(printed)) => {
                kill_group(group);
                let status = child.wait().await.ok();
                return Err(failed(format!("it exited ({status:?}): {printed}")));
            }
            Err(_) => {
                kill_group(group);
                let _ = child.wait().await;
                return Err(failed(format!("nothing within {START_TIMEOUT:?}")));
            }
        };
        // Keep reading what the browser prints, so that a full pipe never blocks it.
        let stderr = tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                tracing::trace!(target: "maitool::render", "chromium: {line}");
            }
        });
        let (browser, mut handler) = match Browser::connect(endpoint).await {
            Ok(connected) => connected,
            Err(err) => {
                kill_group(group);
                let _ = child.wait().await;
                stderr.abort();
                return Err(RenderError::Browser(err.to_string()));
            }
        };
        let handler = tokio::spawn(async move {
            while let Some(event) = handler.next().await {
                if event.is_err() {
                    break;
                }
            }
        });
        Ok(Running {
            child,
            group,
            browser,
            handler,
            stderr,
            dir,
        })
    }

    /// Where the page's HTML is written.
    pub fn page_file(&self) -> PathBuf {
        self.dir.path().join("page.html")
    }

    /// Ends the browser and every process it started, and waits for it.
    pub async fn stop(&mut self) {
        kill_group(self.group.take());
        let _ = self.child.wait().await;
        self.handler.abort();
        self.stderr.abort();
    }
}

impl Drop for Running {
    /// A render dropped mid-way (its call cancelled) still ends the group.
    fn drop(&mut self) {
        kill_group(self.group.take());
        self.handler.abort();
        self.stderr.abort();
    }
}

fn kill_group(group: Option<Pid>) {
    if let Some(group) = group {
        // The group may be gone already; nothing else is to be done then.
        let _ = killpg(group, Signal::SIGKILL);
    }
}
