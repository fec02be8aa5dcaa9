//! Starting a real runner the way the host does, for tests that play the host themselves: the
//! session token on an inherited pipe (descriptor 3), never in the environment.

use std::io::Write;
use std::path::Path;
use std::process::Stdio;

/// A command that starts `runner` with `token` readable on descriptor 3 and
/// `MAITOOL_SESSION_TOKEN_FD=3`. A shell moves the pipe from its standard input to descriptor
/// 3 and gives the runner `/dev/null` as input, then `exec`s it: the runner is the process
/// this command starts, as when the host spawns it.
pub fn runner_command(runner: &Path, token: &str) -> tokio::process::Command {
    let (reader, mut writer) = std::io::pipe().expect("a pipe");
    writer
        .write_all(token.as_bytes())
        .expect("the token fits the pipe");
    drop(writer);
    let mut command = tokio::process::Command::new("/bin/sh");
    command
        .arg("-c")
        .arg(r#"exec "$0" 3<&0 </dev/null"#)
        .arg(runner)
        .env("MAITOOL_SESSION_TOKEN_FD", "3")
        .stdin(Stdio::from(reader));
    command
}
