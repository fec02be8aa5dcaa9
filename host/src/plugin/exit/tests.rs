use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;

use super::RunnerExit;

#[test]
fn statuses_read_as_sentences() {
    let killed = RunnerExit::from_wait(&Ok(ExitStatus::from_raw(9)));
    assert_eq!(killed, RunnerExit::Signal("SIGKILL".into()));
    assert_eq!(killed.describe(), "killed by signal SIGKILL");
    assert_eq!(
        killed.for_callers(),
        "the runner was killed by signal SIGKILL"
    );
    let failed = RunnerExit::from_wait(&Ok(ExitStatus::from_raw(1 << 8)));
    assert_eq!(failed.describe(), "exited with status 1");
    assert_eq!(failed.for_callers(), "the runner exited with status 1");
    let lost = RunnerExit::from_wait(&Err(std::io::Error::other("gone")));
    assert_eq!(
        lost.for_callers(),
        "the runner could not be waited for: gone"
    );
}
