//! Saying that a test skipped where the person running the tests sees it.
//!
//! libtest captures what a test prints through `print!` and `eprintln!` and shows it only
//! when the test fails; a test that skips passes, so `cargo test` alone would say nothing
//! about it. The announcement is written to the process's stderr handle itself, which the capture
//! does not intercept, so it appears in the output of the README's test command.

use std::io::Write;

/// Announces that the calling test skips, and why (name the install step that would let it
/// run).
pub fn announce(reason: &str) {
    let mut stderr = std::io::stderr().lock();
    // Nothing better to do with a closed stderr than to skip quietly.
    let _ = writeln!(stderr, "\n======== SKIPPED: {reason} ========\n");
}
