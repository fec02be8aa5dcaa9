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
