//! A plugin that tries to get out of its sandbox, for the sandbox's tests: each tool makes one
//! attempt and answers what the OS said. Under the host's default sandbox every attempt fails
//! with an OS error (the tool's failed result carries it); with the sandbox off, each succeeds.
//! Not a plugin to ship: it reads, writes, connects, signals and forks where it is told to.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::time::Duration;

use maitool_sdk::prelude::*;

/// Arguments of `read_file`.
#[maitool_sdk::args]
struct ReadArgs {
    /// The file to read.
    path: String,
}

/// Arguments of `write_file`.
#[maitool_sdk::args]
struct WriteArgs {
    /// The file to create or replace.
    path: String,
    /// What to write into it.
    text: String,
}

/// Arguments of `connect`.
#[maitool_sdk::args]
struct ConnectArgs {
    /// A TCP port on 127.0.0.1.
    port: u16,
    /// A line to send once connected.
    #[serde(default)]
    send: String,
}

/// Arguments of `signal`.
#[maitool_sdk::args]
struct SignalArgs {
    /// The process to signal; 0: this runner's parent (the host).
    pid: i32,
}

/// Arguments of `fork`.
#[maitool_sdk::args]
struct ForkArgs {
    /// How many processes to start at most (each sleeps until this call ends).
    count: u32,
}

fn os_error(what: &str, err: std::io::Error) -> ToolError {
    ToolError::new(format!("{what}: {err}"))
}

fn main() {
    maitool_sdk::run([escape()]);
}

fn escape() -> Plugin {
    Plugin::new("examples.escape", "1.0.0")
        .name("Sandbox escape attempts")
        .description("Tries what a hostile plugin would; each tool answers the OS's verdict.")
        .tool(Tool::blocking(
            "read_file",
            "Reads a file and answers its length.",
            |args: ReadArgs, _ctx| {
                let mut text = String::new();
                std::fs::File::open(&args.path)
                    .and_then(|mut file| file.read_to_string(&mut text))
                    .map_err(|err| os_error(&format!("cannot read {}", args.path), err))?;
                Ok(ToolOutput::text(format!("read {} bytes: {text}", text.len())))
            },
        ))
        .tool(Tool::blocking(
            "write_file",
            "Writes a file.",
            |args: WriteArgs, _ctx| {
                std::fs::write(&args.path, &args.text)
                    .map_err(|err| os_error(&format!("cannot write {}", args.path), err))?;
                Ok(ToolOutput::text(format!("wrote {}", args.path)))
            },
        ))
        .tool(Tool::blocking(
            "connect",
            "Connects to a TCP port on 127.0.0.1 and sends a line.",
            |args: ConnectArgs, _ctx| {
                let address = SocketAddr::from((Ipv4Addr::LOCALHOST, args.port));
                let mut stream = TcpStream::connect_timeout(&address, Duration::from_secs(5))
                    .map_err(|err| os_error(&format!("cannot connect to {address}"), err))?;
                stream
                    .write_all(format!("{}\n", args.send).as_bytes())
                    .map_err(|err| os_error("cannot send", err))?;
                Ok(ToolOutput::text(format!("connected to {address}")))
            },
        ))
        .tool(Tool::blocking(
            "signal",
            "Sends SIGCONT (harmless to a running process) to a process.",
            |args: SignalArgs, _ctx| {
                let pid = if args.pid == 0 {
                    nix::unistd::getppid()
                } else {
                    nix::unistd::Pid::from_raw(args.pid)
                };
                nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGCONT)
                    .map_err(|err| os_error(&format!("cannot signal {pid}"), err.into()))?;
                Ok(ToolOutput::text(format!("signalled {pid}")))
            },
        ))
        .tool(Tool::blocking(
            "fork",
            "Starts up to `count` sleeping processes, then stops them all; answers how many started.",
            |args: ForkArgs, _ctx| {
                let mut children = Vec::new();
                let mut refused = None;
                for _ in 0..args.count {
                    match std::process::Command::new("sleep").arg("30").spawn() {
                        Ok(child) => children.push(child),
                        Err(err) => {
                            refused = Some(err);
                            break;
                        }
                    }
                }
                let started = children.len();
                for mut child in children {
                    let _ = child.kill();
                    let _ = child.wait();
                }
                match refused {
                    Some(err) => Err(os_error(
                        &format!("started {started} of {} processes, then", args.count),
                        err,
                    )),
                    None => Ok(ToolOutput::text(format!("started all {started} processes"))),
                }
            },
        ))
}
