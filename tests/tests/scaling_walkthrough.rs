//! docs/SCALING.md's "Two members against two hosts, step by step", run as written: its
//! OpenSSL commands make the certificates and the token, its `[[pools]]` block goes into two
//! real `maitool serve`, and its member command starts the unchanged example plugin twice.
//! The members run in a network namespace whose `/etc/hosts` gives `host-a.internal` and
//! `host-b.internal` the two hosts' addresses, so that the names, certificates and addresses
//! are the page's. The only edits: each host listens on its own address instead of
//! `0.0.0.0` (both hosts share this machine), host B's file names, and the second member's
//! name.

mod ops_support;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use maitool_e2e::netns::Netns;
use maitool_e2e::workspace_bin;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use ops_support::Fixture;

/// The fenced blocks of the step-by-step section, in order, with their language.
fn walkthrough_blocks() -> Vec<(String, String)> {
    let page = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/SCALING.md"),
    )
    .unwrap();
    let start = page
        .find("### Two members against two hosts, step by step")
        .expect("the step-by-step section");
    let section = &page[start..];
    let section = &section[..section[4..]
        .find("\n### ")
        .map_or(section.len(), |end| end + 4)];
    let mut blocks = Vec::new();
    let mut lines = section.lines();
    while let Some(line) = lines.next() {
        if let Some(language) = line.strip_prefix("```") {
            let body: Vec<&str> = lines.by_ref().take_while(|l| *l != "```").collect();
            blocks.push((language.to_owned(), body.join("\n") + "\n"));
        }
    }
    blocks
}

fn sh(dir: &std::path::Path, script: &str) -> String {
    let output = Command::new("bash")
        .arg("-euo")
        .arg("pipefail")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "the page's commands failed:\n{script}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn two_members_serve_two_hosts_following_docs_scaling_md() {
    let Some(netns) = Netns::create("scaling_walkthrough", 2) else {
        return;
    };
    let blocks = walkthrough_blocks();
    let kinds: Vec<&str> = blocks.iter().map(|(kind, _)| kind.as_str()).collect();
    assert_eq!(kinds, ["sh", "toml", "sh"], "the section's blocks changed");

    // Step 1: certificates and token, by the page's commands.
    let keys = tempfile::tempdir().unwrap();
    let printed = sh(keys.path(), &blocks[0].1);
    let digest = printed
        .split_whitespace()
        .next()
        .expect("sha256sum's output");
    assert_eq!(digest.len(), 64, "{printed}");

    // Step 2: the page's pool on each host; each host listens on its own address.
    let addresses = [
        netns.link(0).outside_addr.clone(),
        netns.link(1).outside_addr.clone(),
    ];
    let hosts: Vec<_> = ["host-a", "host-b"]
        .iter()
        .zip(&addresses)
        .map(|(name, addr)| {
            let pool = blocks[1]
                .1
                .replace("<the sha256sum printed above>", digest)
                .replace("0.0.0.0:7443", &format!("{addr}:7443"))
                .replace("host-a.", &format!("{name}."));
            let fixture = Fixture::new(&[], "", &pool);
            for file in ["ca.pem", &format!("{name}.pem"), &format!("{name}.key")] {
                std::fs::copy(keys.path().join(file), fixture.dir().join(file)).unwrap();
            }
            let serve = fixture.serve(&[]);
            serve.wait_for_log(|line| line["fields"]["message"] == "pool listening for members");
            (fixture, serve)
        })
        .collect();

    // Step 3: two members, by the page's command, in the namespace where the hosts' names
    // resolve to their addresses.
    netns.hosts(&[
        (&addresses[0], "host-a.internal"),
        (&addresses[1], "host-b.internal"),
    ]);
    let members_dir = tempfile::tempdir().unwrap();
    for file in ["ca.pem", "member.pem", "member.key", "pool-token"] {
        std::fs::copy(keys.path().join(file), members_dir.path().join(file)).unwrap();
    }
    std::os::unix::fs::symlink(
        workspace_bin("maitool-example-replica"),
        members_dir.path().join("maitool-example-replica"),
    )
    .unwrap();
    let member_command = blocks[2].1.replace("\\\n", " ");
    let mut members: Vec<std::process::Child> = ["member-1", "member-2"]
        .iter()
        .map(|name| {
            // bash runs the one command in place (no fork), so a signal to the child
            // reaches the member itself.
            let script = member_command.trim().replace("member-1", name);
            Command::new("ip")
                .args(["netns", "exec", &netns.name, "bash", "-c", &script])
                .current_dir(members_dir.path())
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(
                    std::fs::File::create(members_dir.path().join(format!("{name}.log"))).unwrap(),
                )
                .spawn()
                .unwrap()
        })
        .collect();
    let member_logs = || {
        ["member-1", "member-2"]
            .map(|name| {
                let log = members_dir.path().join(format!("{name}.log"));
                format!(
                    "{name}:\n{}",
                    std::fs::read_to_string(log).unwrap_or_default()
                )
            })
            .join("\n")
    };
    for (_, serve) in &hosts {
        for name in ["member-1", "member-2"] {
            serve.wait_for_log_or(&member_logs, |line| {
                line["fields"]["message"] == "pool member ready: calls go to it"
                    && line["fields"]["member"] == name
            });
        }
    }

    // Step 4: a call on either host; then one member stopped with SIGTERM drains and exits
    // 0, and the calls go to the other.
    for (fixture, _) in &hosts {
        let (code, out, err) = fixture.maitool(&["call", "p1_echo", "--args", r#"{"text": "hi"}"#]);
        assert_eq!((code, out.trim()), (0, "hi"), "{err}");
    }
    kill(Pid::from_raw(members[0].id() as i32), Signal::SIGTERM).unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = members[0].try_wait().unwrap() {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "member-1 did not exit after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "member-1 after SIGTERM: {status:?}");
    for (fixture, _) in &hosts {
        for n in 0..5 {
            let text = format!("after {n}");
            let args = format!(r#"{{"text": "{text}"}}"#);
            let (code, out, err) = fixture.maitool(&["call", "p1_echo", "--args", &args]);
            assert_eq!((code, out.trim()), (0, text.as_str()), "{err}");
        }
        let (code, out, err) = fixture.maitool(&["status", "--json"]);
        assert_eq!(code, 0, "{err}");
        let status: serde_json::Value = serde_json::from_str(&out).unwrap();
        let names: Vec<&str> = status["pools"][0]["members"]
            .as_array()
            .unwrap()
            .iter()
            .map(|member| member["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["member-2"], "{status:#}");
    }
    let _ = members[1].kill();
    for member in &mut members {
        let _ = member.wait();
    }
}
