//! The verbs without a running serve: a one-shot host answers, and says so; the verbs that
//! only change a running serve refuse.

mod ops_support;

use ops_support::Fixture;

const NOTE: &str = "no maitool serve is running on";

#[test]
fn a_one_shot_host_says_so_and_serve_only_verbs_refuse() {
    let fixture = Fixture::new(&["dice"], "", "");
    let control = fixture.control().display().to_string();

    let (code, out, err) = fixture.maitool(&["status", "--json"]);
    assert_eq!(code, 0, "{err}");
    let status: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(status["answered_by"], "one-shot", "{out}");
    assert_eq!(status["control_socket"], control.as_str());
    assert!(
        err.contains(&format!(
            "maitool: {NOTE} {control}: a one-shot host started for this command answers it"
        )),
        "{err}"
    );
    let (code, out, _) = fixture.maitool(&["status"]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with(&format!(
            "host: one-shot, started for this command (no maitool serve on {control})\n"
        )),
        "{out}"
    );
    for verb in [
        &["tools"][..],
        &["call", "roll_dice", "--args", r#"{"sides": 6}"#],
    ] {
        let (code, _, err) = fixture.maitool(verb);
        assert_eq!(code, 0, "{verb:?}: {err}");
        assert!(err.contains(NOTE), "{verb:?}: {err}");
    }

    // Changing a throwaway host would change nothing anyone sees: these need serve.
    for (verb, why) in [
        (&["reload"][..], "(reload changes a running host)"),
        (
            &["enable", "roll_dice"],
            "(enable/disable change a running host)",
        ),
        (
            &["disable", "roll_dice"],
            "(enable/disable change a running host)",
        ),
        (&["restart", "dice"], "(restart acts on a running host)"),
    ] {
        let (code, out, err) = fixture.maitool(verb);
        assert_eq!(code, 2, "{verb:?}: {out}");
        assert_eq!(
            err.trim(),
            format!("maitool: {NOTE} {control} {why}"),
            "{verb:?}"
        );
    }

    let serve = fixture.serve(&[]);
    let (code, out, err) = fixture.maitool(&["status", "--json"]);
    assert_eq!(code, 0, "{err}");
    let status: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(status["answered_by"], "serve", "{out}");
    assert!(!err.contains(NOTE), "{err}");
    let (_, out, _) = fixture.maitool(&["status"]);
    assert!(
        out.starts_with(&format!("host: maitool serve on {control}\n")),
        "{out}"
    );
    serve.stop();
}

/// The pids of `parent`'s children, from `/proc`.
fn children(parent: u32) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
                stat.rsplit_once(") ")
                    .and_then(|(_, rest)| rest.split(' ').nth(1)?.parse::<u32>().ok())
                    == Some(parent)
            })
        })
        .collect()
}

#[test]
fn a_one_shot_host_killed_with_sigkill_leaves_no_child_behind() {
    // A runner that never speaks: the one-shot `status` waits for its handshake.
    let fixture = Fixture::new(&[], "handshake_timeout_ms = 30000\n", "");
    let text = std::fs::read_to_string(&fixture.config).unwrap();
    std::fs::write(
        &fixture.config,
        format!("[[runners]]\nname = \"sleeper\"\nexecutable = \"/bin/sleep\"\nargs = [\"1000\"]\n\n{text}"),
    )
    .unwrap();
    let mut status = fixture
        .command()
        .arg("status")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let sleeper = loop {
        let found: Vec<u32> = children(status.id())
            .into_iter()
            .filter(|pid| {
                std::fs::read(format!("/proc/{pid}/cmdline"))
                    .is_ok_and(|cmd| cmd.starts_with(b"/bin/sleep\x001000"))
            })
            .collect();
        if let Some(pid) = found.first() {
            break *pid;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the runner never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    status.kill().unwrap(); // SIGKILL
    status.wait().unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while std::fs::read_to_string(format!("/proc/{sleeper}/stat"))
        .is_ok_and(|stat| !stat.contains(") Z "))
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the runner {sleeper} outlived its SIGKILLed one-shot host"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// The fixture's configuration with `runner` (TOML of one `[[runners]]` table) put first.
fn with_runner(fixture: &Fixture, runner: &str) {
    let text = std::fs::read_to_string(&fixture.config).unwrap();
    std::fs::write(&fixture.config, format!("{runner}\n{text}")).unwrap();
}

const SLEEPER: &str =
    "[[runners]]\nname = \"sleeper\"\nexecutable = \"/bin/sleep\"\nargs = [\"1000\"]\n";

#[test]
fn a_runner_that_never_connects_is_named_and_fails_the_verb_within_its_handshake_timeout() {
    let fixture = Fixture::new(&["dice"], "handshake_timeout_ms = 2000\n", "");
    with_runner(&fixture, SLEEPER);
    let failure = "maitool: runner sleeper failed to start: no handshake within 2000 ms";
    // Generous: the bound is the handshake timeout (2 s), not the handshake plus readiness
    // timeouts (32 s) nor the restarts a supervisor goes through.
    let limit = std::time::Duration::from_secs(2 + 6);

    let started = std::time::Instant::now();
    let (code, out, err) = fixture.maitool(&["status", "--json"]);
    let elapsed = started.elapsed();
    assert!(elapsed < limit, "status took {elapsed:?}");
    assert_eq!(code, 3, "{err}");
    assert!(err.contains(failure), "{err}");
    let status: serde_json::Value = serde_json::from_str(&out).unwrap();
    let state = |name: &str| {
        status["runners"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == name)
            .map(|r| r["state"].clone())
    };
    assert_eq!(state("dice"), Some("ready".into()), "{out}");
    eprintln!("status with a silent runner: {elapsed:?} at a 2 s handshake timeout");

    // `tools` lists what did start, and says that a configured source did not.
    let started = std::time::Instant::now();
    let (code, out, err) = fixture.maitool(&["tools", "--json"]);
    assert!(
        started.elapsed() < limit,
        "tools took {:?}",
        started.elapsed()
    );
    assert_eq!(code, 3, "{err}");
    assert!(err.contains(failure), "{err}");
    assert!(out.contains("\"roll_dice\""), "{out}");

    // A call's exit status is its own result; the failed source is still named.
    let (code, _, err) = fixture.maitool(&["call", "roll_dice", "--args", r#"{"sides": 6}"#]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains(failure), "{err}");

    // Against serve, nothing is started for the command: no such note.
    let serve = fixture.serve(&[]);
    let (code, _, err) = fixture.maitool(&["tools"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("failed to start"), "{err}");
    serve.stop();
}

#[test]
fn an_mcp_server_that_never_answers_is_named_and_fails_the_verb_within_its_connect_timeout() {
    let fixture = Fixture::new(
        &["dice"],
        "",
        "[[mcp.servers]]\nname = \"silent\"\ntransport = \"stdio\"\ncommand = \"/bin/cat\"\n",
    );
    let text = std::fs::read_to_string(&fixture.config).unwrap();
    std::fs::write(
        &fixture.config,
        text.replace(
            "[mcp]\nenable = true\n",
            "[mcp]\nenable = true\nconnect_timeout_seconds = 2\n",
        ),
    )
    .unwrap();
    let started = std::time::Instant::now();
    let (code, out, err) = fixture.maitool(&["tools", "--json"]);
    let elapsed = started.elapsed();
    assert!(
        elapsed < std::time::Duration::from_secs(2 + 6),
        "tools took {elapsed:?}"
    );
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains(
            "maitool: MCP server silent failed to start: no connection within 2.0 s (connect timeout)"
        ),
        "{err}"
    );
    // The example server and the runner still serve.
    assert!(
        out.contains("\"ex_echo\"") && out.contains("\"roll_dice\""),
        "{out}"
    );
    eprintln!("tools with a silent MCP server: {elapsed:?} at a 2 s connect timeout");
}

#[test]
fn a_one_shot_host_stopped_by_timeout_leaves_no_child_behind() {
    // `timeout` sends SIGTERM, which a one-shot verb does not catch: it dies at once, and its
    // runner, still in its handshake, must die with it.
    let fixture = Fixture::new(&[], "handshake_timeout_ms = 30000\n", "");
    with_runner(
        &fixture,
        "[[runners]]\nname = \"sleeper\"\nexecutable = \"/bin/sleep\"\nargs = [\"1001\"]\n",
    );
    let mut timeout = std::process::Command::new("timeout")
        .arg("3")
        .arg(maitool_e2e::workspace_bin("maitool"))
        .args(fixture.command().get_args())
        .arg("status")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let sleeper = loop {
        let found = children(timeout.id())
            .into_iter()
            .flat_map(children)
            .find(|pid| {
                std::fs::read(format!("/proc/{pid}/cmdline"))
                    .is_ok_and(|cmd| cmd.starts_with(b"/bin/sleep\x001001"))
            });
        if let Some(pid) = found {
            break pid;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the runner never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let status = timeout.wait().unwrap();
    assert_eq!(status.code(), Some(124), "timeout stopped the verb");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while std::fs::read_to_string(format!("/proc/{sleeper}/stat"))
        .is_ok_and(|stat| !stat.contains(") Z "))
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the runner {sleeper} outlived its one-shot host stopped by timeout"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
