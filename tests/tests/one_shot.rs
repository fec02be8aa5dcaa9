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
