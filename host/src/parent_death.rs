//! Every process the host starts (runners and stdio MCP servers) dies with the host, even when
//! the host is killed with SIGKILL and the child does not watch its parent itself (MaiBot's
//! runner, a runner in any other language, an MCP server that ignores the end of its stdin).

use nix::errno::Errno;
use nix::sys::prctl;
use nix::sys::signal::Signal;
use nix::unistd::{Pid, getppid};

/// Makes the process that `command` starts receive SIGKILL when the host dies.
///
/// Linux delivers the parent-death signal when the thread that forked the child ends; the
/// host forks children from its runtime's threads, which live as long as the host.
#[allow(unsafe_code)]
pub(crate) fn kill_with_host(command: &mut tokio::process::Command) {
    let host = Pid::this();
    // SAFETY: `pre_exec` runs the closure in the forked child before `exec`, where only
    // async-signal-safe calls are allowed. It makes two system calls, prctl(2) and
    // getppid(2), and builds an `io::Error` from an errno, which does not allocate: no
    // locks, no allocation, no shared state.
    unsafe {
        command.pre_exec(move || {
            prctl::set_pdeathsig(Signal::SIGKILL).map_err(std::io::Error::from)?;
            // The host may have died between fork and prctl: then the signal will never
            // come, and the child must not start.
            if getppid() != host {
                return Err(std::io::Error::from(Errno::ESRCH));
            }
            Ok(())
        });
    }
}
