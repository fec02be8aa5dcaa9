//! The web console in a real browser (headless Chromium over DevTools) on the shipped
//! configuration: it shows every runner and tool, follows a killed runner's restart without a
//! reload, disables a plugin by a click (and `maitool plugins` agrees), and refuses a
//! cross-origin POST.

mod web_support;

use std::io::{BufRead, BufReader, Write};
use std::time::Duration;

use maitool_e2e::browser::{Chromium, click, eval, screenshot, wait_until};
use maitool_e2e::chromium::chromium;
use maitool_e2e::maibot_env::base_python_found;
use serde_json::Value;
use web_support::Console;

const LIMIT: Duration = Duration::from_secs(60);

/// The console on the shipped configuration and a browser, or `None` after a loud skip
/// (CI requires both Chromium and Python).
async fn console_and_browser(test: &'static str) -> Option<(Console, Chromium)> {
    let executable = chromium(test)?;
    let console = tokio::task::spawn_blocking(move || {
        base_python_found(test).then(|| {
            let console = Console::shipped();
            console.wait_ready();
            console
        })
    })
    .await
    .unwrap()?;
    Some((console, Chromium::start(&executable).await))
}

/// Writes a screenshot into docs/ when `MAITOOL_WRITE_SCREENSHOTS=1` (how the docs' images
/// are made); otherwise only checks one can be taken.
async fn keep_screenshot(page: &chromiumoxide::Page, name: &str) {
    let png = screenshot(page).await;
    assert!(png.starts_with(b"\x89PNG"), "a PNG");
    if std::env::var("MAITOOL_WRITE_SCREENSHOTS").as_deref() == Ok("1") {
        let path = web_support::repo().join("docs").join(name);
        std::fs::write(&path, png).unwrap();
    }
}

fn names(listing: &Value, key: &str) -> Vec<String> {
    listing
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item[key].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_shows_every_runner_and_tool_and_follows_a_killed_runners_restart_live() {
    let Some((console, browser)) =
        console_and_browser("the_console_shows_every_runner_and_tool").await
    else {
        return;
    };
    let page = browser.open(&console.url).await;
    let status = console.json(&["status", "--json"]);
    let runners = names(&status["runners"], "name");
    assert_eq!(runners.len(), 6, "{status}");
    for runner in &runners {
        wait_until(
            &page,
            &format!("!!document.querySelector('tr[data-runner=\"{runner}\"] .state-ready')"),
            LIMIT,
            &format!("runner {runner} shown ready"),
        )
        .await;
    }
    let tools = names(&console.json(&["tools", "--json"]), "name");
    assert!(tools.len() > 20, "{tools:?}");
    for tool in &tools {
        wait_until(
            &page,
            &format!("!!document.querySelector('tr[data-tool=\"{tool}\"]')"),
            LIMIT,
            &format!("tool {tool} listed"),
        )
        .await;
    }
    keep_screenshot(&page, "console-overview.png").await;

    // Mark this page: a reload would lose the mark.
    eval(&page, "window.__same_page = 'yes'; true").await;
    let dice = console.runner("dice");
    let old_pid = dice["pid"].as_i64().unwrap();
    assert_eq!(dice["restart_count"], 0);
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(old_pid as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    wait_until(
        &page,
        &format!(
            "(() => {{ const row = document.querySelector('tr[data-runner=\"dice\"]');
                 return !!row && row.querySelector('.restarts').textContent === '1'
                     && row.querySelector('.pid').textContent !== '{old_pid}'
                     && !!row.querySelector('.state-ready'); }})()"
        ),
        LIMIT,
        "the page shows dice restarted with a new pid",
    )
    .await;
    assert_eq!(
        eval(&page, "window.__same_page").await,
        "yes",
        "the page was reloaded: the update was not pushed"
    );
    let row = eval(
        &page,
        "document.querySelector('tr[data-runner=\"dice\"]').innerText",
    )
    .await;
    assert!(row.as_str().unwrap().contains("signal"), "last exit: {row}");

    // The log, filtered to warnings and worse: the crash is there.
    let logs = browser
        .open(&format!("{}logs?plugin=&level=WARN", console.url))
        .await;
    wait_until(
        &logs,
        "[...document.querySelectorAll('#log-lines > div')].some(d => d.textContent.includes('dice'))",
        LIMIT,
        "the runner's crash in the log",
    )
    .await;
    keep_screenshot(&logs, "console-logs.png").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disabling_a_plugin_by_clicking_makes_maitool_plugins_show_it_disabled_and_its_tools_gone()
{
    let Some((console, browser)) = console_and_browser("disabling_a_plugin_by_clicking").await
    else {
        return;
    };
    let before = names(&console.json(&["tools", "--json"]), "name");
    let plugins = console.json(&["plugins", "--json"]);
    let notes_tools: Vec<String> = plugins
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == "examples.notes")
        .unwrap()["components"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| {
            c["component_type"]
                .as_str()
                .unwrap()
                .eq_ignore_ascii_case("tool")
        })
        .map(|c| {
            c["full_name"]
                .as_str()
                .unwrap()
                .trim_start_matches("examples.notes.")
                .to_owned()
        })
        .collect();
    assert!(notes_tools.len() >= 2, "{plugins}");
    for tool in &notes_tools {
        assert!(before.contains(tool), "{tool} not in {before:?}");
    }
    let page = browser.open(&console.url).await;
    click(&page, "tr[data-plugin=\"examples.notes\"] form button").await;
    wait_until(
        &page,
        "location.search.includes('note=') && document.body.innerText.includes('examples.notes disabled')",
        LIMIT,
        "the console says the plugin is disabled",
    )
    .await;
    let plugins = console.json(&["plugins", "--json"]);
    let notes = plugins
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == "examples.notes")
        .unwrap();
    assert_eq!(notes["state"], "inactive", "{notes}");
    let after = names(&console.json(&["tools", "--json"]), "name");
    for tool in &notes_tools {
        assert!(!after.contains(tool), "{tool} still listed: {after:?}");
    }
    assert!(
        console.file().contains("enabled = false"),
        "{}",
        console.file()
    );
    // The page follows: the row shows the plugin inactive, with Enable to undo it.
    wait_until(
        &page,
        "!!document.querySelector('tr[data-plugin=\"examples.notes\"] .state-inactive')",
        LIMIT,
        "the page shows the plugin inactive",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cross_origin_post_is_refused_and_changes_nothing() {
    let Some((console, browser)) = console_and_browser("a_cross_origin_post_is_refused").await
    else {
        return;
    };
    let file_before = console.file();
    // Another site's page that posts the console's disable form as soon as it loads.
    let page_html = format!(
        r#"<!doctype html><html><body><form id="f" method="post" action="{}plugins/examples.dice/disable">
<input name="plugin" value="examples.dice"></form><script>document.getElementById('f').submit();</script></body></html>"#,
        console.url
    );
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let other = format!(
        "http://localhost:{}/",
        listener.local_addr().unwrap().port()
    );
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            let mut stream = stream;
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{}",
                page_html.len(),
                page_html
            );
        }
    });
    let page = browser.open(&other).await;
    wait_until(
        &page,
        "document.body && document.body.innerText.includes('may not change this console')",
        LIMIT,
        "the console's refusal",
    )
    .await;
    let plugins = console.json(&["plugins", "--json"]);
    let dice = plugins
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == "examples.dice")
        .unwrap();
    assert_eq!(dice["state"], "loaded", "{dice}");
    assert_eq!(
        console.file(),
        file_before,
        "the configuration file changed"
    );
}
