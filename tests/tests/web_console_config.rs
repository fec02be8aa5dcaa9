//! A plugin's configuration form in the web console, in a real browser (headless Chromium),
//! on the shipped configuration: an invalid value is shown inline and nothing is saved; a
//! valid one is saved into `maitool.toml` with its comments kept and reaches the plugin live
//! (its tool answers differently).

mod web_support;

use std::time::Duration;

use maitool_e2e::browser::{Chromium, click, eval, screenshot, type_into, wait_until};
use maitool_e2e::chromium::chromium;
use maitool_e2e::maibot_env::base_python_found;
use web_support::Console;

const LIMIT: Duration = Duration::from_secs(60);

/// Rolls `count` dice through `maitool call`; Ok(text) or Err(text).
fn roll(console: &Console, count: u32) -> Result<String, String> {
    let args = format!(r#"{{"count": {count}, "sides": 6}}"#);
    let output = console
        .maitool
        .command()
        .env(
            "CARGO_TARGET_DIR",
            maitool_e2e::target_dir().parent().unwrap(),
        )
        .args(["call", "roll_dice", "--json", "--args", &args])
        .output()
        .expect("maitool call runs");
    let result: serde_json::Value =
        serde_json::from_slice(&output.stdout).unwrap_or(serde_json::Value::Null);
    let text = result.to_string();
    if result["success"] == true {
        Ok(text)
    } else {
        Err(text)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_invalid_value_errs_inline_and_saves_nothing_and_a_valid_one_applies_live_keeping_comments()
 {
    let test = "web console configuration form";
    let Some(executable) = chromium(test) else {
        return;
    };
    let Some(console) = tokio::task::spawn_blocking(move || {
        base_python_found(test).then(|| {
            let console = Console::shipped();
            console.wait_ready();
            console
        })
    })
    .await
    .unwrap() else {
        return;
    };
    let browser = Chromium::start(&executable).await;
    let original = console.file();
    assert!(original.contains("max_dice = 50"), "{original}");
    roll(&console, 5).expect("five dice roll under max_dice = 50");

    let page = browser
        .open(&format!("{}plugins/examples.dice", console.url))
        .await;
    // Typed: the error shows inline as soon as the form is checked, before any save.
    type_into(&page, "#max_dice", "-5").await;
    wait_until(
        &page,
        "document.querySelector('#err-max_dice').textContent.includes('minimum')",
        LIMIT,
        "the inline error while typing",
    )
    .await;
    // The inline check already shows the very message the save shows, so the wait must tell
    // the page the save returns from the page it was sent from: a mark only the old one has.
    eval(&page, "window.__sentFromHere = true; true").await;
    click(&page, "#config-form button[type=submit]").await;
    wait_until(
        &page,
        "!window.__sentFromHere && document.readyState === 'complete' && !!document.querySelector('#err-max_dice') && document.querySelector('#err-max_dice').textContent.includes('-5 is less than the minimum of 0') && document.querySelector('#max_dice').value === '-5'",
        LIMIT,
        "the error next to the field after saving",
    )
    .await;
    assert_eq!(console.file(), original, "an invalid value was saved");
    roll(&console, 5).expect("the plugin still has max_dice = 50");
    screenshot(&page).await;
    if std::env::var("MAITOOL_WRITE_SCREENSHOTS").as_deref() == Ok("1") {
        std::fs::write(
            web_support::repo().join("docs/console-plugin-config.png"),
            screenshot(&page).await,
        )
        .unwrap();
    }

    type_into(&page, "#max_dice", "3").await;
    // The check as it is typed clears the error once the value fits.
    wait_until(
        &page,
        "document.querySelector('#err-max_dice').textContent === ''",
        LIMIT,
        "the inline error cleared for a valid value",
    )
    .await;
    click(&page, "#config-form button[type=submit]").await;
    wait_until(
        &page,
        "document.body.innerText.includes('Configuration saved and applied')",
        LIMIT,
        "the saved note",
    )
    .await;
    let saved = console.file();
    assert_eq!(
        saved,
        original.replace("max_dice = 50", "max_dice = 3"),
        "only the value changed: every comment and line else is kept"
    );
    let refused = roll(&console, 5).expect_err("five dice are over the new max_dice = 3");
    assert!(
        refused.contains("count must be between 1 and 3"),
        "{refused}"
    );
    roll(&console, 3).expect("three dice roll");
}
