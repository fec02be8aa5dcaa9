//! Hands a maitool runner its session token through an inherited pipe that the runner reads
//! once and closes. The token is never in the runner's environment, so `/proc/PID/environ`
//! does not show it for the runner's life, and plugin code (which shares the runner's process)
//! finds the pipe drained and closed. MaiBot's runner reads its token from the environment,
//! which the host cannot change (`super::maibot`).

use std::io::Write;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};

use maitool_protocol::launch;
use nix::fcntl::{FcntlArg, FdFlag, OFlag, fcntl};
use nix::unistd::pipe2;

/// Descriptors 0-2 are the runner's standard streams, which `Command` replaces in the child
/// before our hook runs: the pipe must not be one of them.
const LOWEST_FD: i32 = 3;

/// Writes `token` into a fresh pipe and makes the process `command` starts inherit the pipe's
/// read end, its number in [`launch::SESSION_TOKEN_FD`]. Both ends are close-on-exec in the
/// host, so no other child inherits them; only this child clears the flag, after `fork`.
/// Keep the returned read end open until `command` has been spawned, then drop it.
#[allow(unsafe_code)]
pub(crate) fn hand_over(
    command: &mut tokio::process::Command,
    token: &str,
) -> std::io::Result<OwnedFd> {
    let (read, write) = pipe2(OFlag::O_CLOEXEC)?;
    // A token is far below the smallest pipe buffer (4096 bytes): the write does not block.
    // Dropping the write end here means the runner reads the token, then end-of-file.
    std::fs::File::from(write).write_all(token.as_bytes())?;
    let read = if read.as_raw_fd() < LOWEST_FD {
        // A host started with its standard streams closed: `try_clone` duplicates with
        // F_DUPFD_CLOEXEC from 3 up.
        read.try_clone()?
    } else {
        read
    };
    if read.as_raw_fd() < LOWEST_FD {
        return Err(std::io::Error::other(
            "no descriptor above the standard streams for the session token",
        ));
    }
    let fd = read.as_raw_fd();
    command.env(launch::SESSION_TOKEN_FD, fd.to_string());
    // SAFETY: `pre_exec` runs the closure in the forked child before `exec`, where only
    // async-signal-safe calls are allowed: it makes one fcntl(2) call and builds an
    // `io::Error` from an errno, which does not allocate. `fd` is open in the child: the child
    // got a copy of every descriptor the host had at fork, and the caller keeps `read` open
    // until the spawn has returned. Borrowing it for the one call transfers no ownership.
    unsafe {
        command.pre_exec(move || {
            let fd = BorrowedFd::borrow_raw(fd);
            fcntl(fd, FcntlArg::F_SETFD(FdFlag::empty())).map_err(std::io::Error::from)?;
            Ok(())
        });
    }
    Ok(read)
}
