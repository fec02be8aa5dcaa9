//! Headless Chromium driven over DevTools (chromiumoxide, the host's own client for
//! `render.html2png`): pages opened, elements clicked and typed into, scripts evaluated and
//! conditions waited for, as a person using the page would.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use chromiumoxide::page::ScreenshotParams;
use chromiumoxide::{Browser, Page};
use futures::StreamExt;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// A running headless Chromium and its DevTools connection; killed with its process group
/// when dropped.
pub struct Chromium {
    child: Child,
    group: Pid,
    /// The DevTools client.
    pub browser: Browser,
    handler: tokio::task::JoinHandle<()>,
    _profile: tempfile::TempDir,
}

impl Chromium {
    /// Starts `executable` (see [`crate::chromium::chromium`]) with a fresh profile, 1280x900.
    pub async fn start(executable: &Path) -> Chromium {
        let profile = tempfile::tempdir().expect("a profile folder");
        let mut command = Command::new(executable);
        command
            .args([
                "--headless",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-dev-shm-usage",
                "--hide-scrollbars",
                "--window-size=1280,900",
                "--remote-debugging-port=0",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        // Chromium refuses to start its sandbox as root; CI runs as root.
        if nix::unistd::geteuid().is_root() {
            command.arg("--no-sandbox");
        }
        let mut child = command.spawn().expect("chromium starts");
        let group = Pid::from_raw(child.id().expect("a pid") as i32);
        let mut lines = BufReader::new(child.stderr.take().expect("piped")).lines();
        let endpoint = tokio::time::timeout(Duration::from_secs(30), async {
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(url) = line.split_whitespace().find(|w| w.starts_with("ws://")) {
                    return url.to_owned();
                }
            }
            panic!("chromium exited without a DevTools endpoint");
        })
        .await
        .expect("chromium offers its DevTools endpoint within 30 s");
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        let (browser, mut events) = Browser::connect(endpoint).await.expect("DevTools connects");
        let handler = tokio::spawn(async move {
            while let Some(event) = events.next().await {
                if event.is_err() {
                    break;
                }
            }
        });
        Chromium {
            child,
            group,
            browser,
            handler,
            _profile: profile,
        }
    }

    /// Opens `url` in a new tab and waits for it to load.
    pub async fn open(&self, url: &str) -> Page {
        let page = self.browser.new_page(url).await.expect("the page opens");
        page.wait_for_navigation().await.expect("the page loads");
        page
    }
}

impl std::fmt::Debug for Chromium {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chromium")
            .field("group", &self.group)
            .finish_non_exhaustive()
    }
}

impl Drop for Chromium {
    fn drop(&mut self) {
        let _ = killpg(self.group, Signal::SIGKILL);
        let _ = self.child.start_kill();
        self.handler.abort();
    }
}

/// Evaluates `script` in `page` and returns its JSON value.
pub async fn eval(page: &Page, script: &str) -> serde_json::Value {
    page.evaluate(script)
        .await
        .unwrap_or_else(|err| panic!("evaluating {script}: {err}"))
        .value()
        .cloned()
        .unwrap_or(serde_json::Value::Null)
}

/// Waits until `script` evaluates to `true` in `page` (an evaluation that fails while the
/// page navigates counts as not yet); panics with `what` and the page's text after `limit`.
pub async fn wait_until(page: &Page, script: &str, limit: Duration, what: &str) {
    let start = Instant::now();
    loop {
        let done = page
            .evaluate(script)
            .await
            .ok()
            .and_then(|result| result.value().cloned());
        if done == Some(serde_json::Value::Bool(true)) {
            return;
        }
        if start.elapsed() > limit {
            let text = eval(page, "document.body ? document.body.innerText : ''").await;
            panic!("{what}: not within {limit:?}; the page shows:\n{text}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Clicks the element `selector` names (it must exist). A live page may swap the element for
/// a fresh copy between finding and clicking it: then it is found again.
pub async fn click(page: &Page, selector: &str) {
    let mut tries = 0;
    loop {
        let outcome = match page.find_element(selector).await {
            Ok(element) => element.click().await.map(|_| ()),
            Err(err) => Err(err),
        };
        match outcome {
            Ok(()) => return,
            Err(err) if tries < 20 => {
                tries += 1;
                tracing::debug!("clicking {selector} again: {err}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(err) => panic!("clicking {selector}: {err}"),
        }
    }
}

/// Replaces the text of the input `selector` names with `text`, typed key by key.
pub async fn type_into(page: &Page, selector: &str, text: &str) {
    eval(
        page,
        &format!("document.querySelector({selector:?}).value = ''; true"),
    )
    .await;
    page.find_element(selector)
        .await
        .unwrap_or_else(|err| panic!("no element {selector}: {err}"))
        .click()
        .await
        .expect("focus")
        .type_str(text)
        .await
        .unwrap_or_else(|err| panic!("typing into {selector}: {err}"));
}

/// A PNG of the whole page.
pub async fn screenshot(page: &Page) -> Vec<u8> {
    page.screenshot(ScreenshotParams::builder().full_page(true).build())
        .await
        .expect("a screenshot")
}
