use std::process::{Command, Stdio};
use std::time::Duration;

use super::{become_subreaper, cpu_time, descendants, kill_descendants, rss_kib, wait_for};

/// An orphaned grandchild stays in our tree (we are its subreaper) and the cleanup kills it.
/// One test, because the subreaper setting and the cleanup concern the whole test process.
#[test]
fn orphaned_grandchildren_are_found_and_killed() {
    become_subreaper();
    let output = Command::new("sh")
        .args(["-c", "sleep 60 >/dev/null 2>&1 & echo $!"])
        .stdout(Stdio::piped())
        .output()
        .expect("sh runs");
    let grandchild: i32 = String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .expect("a pid");
    wait_for(
        "the orphan to be re-parented to us",
        Duration::from_secs(10),
        Duration::from_millis(5),
        || Ok(descendants().contains(&grandchild)),
    )
    .expect("the orphan is our descendant");
    assert!(rss_kib(grandchild as u32).expect("readable status") > 0);
    assert!(kill_descendants() >= 1);
    assert!(!descendants().contains(&grandchild));
    assert!(
        !std::path::Path::new(&format!("/proc/{grandchild}")).exists(),
        "the orphan was reaped"
    );
}

#[test]
fn cpu_time_grows_with_work_and_is_zero_for_no_process() {
    let me = std::process::id();
    let before = cpu_time(me);
    let mut x = 0u64;
    for i in 0..20_000_000u64 {
        x = x.wrapping_mul(31).wrapping_add(i);
    }
    std::hint::black_box(x);
    assert!(cpu_time(me) > before);
    assert_eq!(cpu_time(u32::MAX), Duration::ZERO);
}
