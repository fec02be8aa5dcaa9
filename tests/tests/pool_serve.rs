//! A pool from `maitool.toml` through a real `maitool serve`: a member dials in, `maitool
//! call` reaches it, and `maitool reload` rotates the pool's token without dropping it.

mod ops_support;
mod pool_support;

use ops_support::Fixture;
use pool_support::{MemberSpec, Running, TOKEN, digest};

fn pools(digests: &[&str]) -> String {
    let list: Vec<String> = digests
        .iter()
        .map(|d| format!("\"{}\"", digest(d)))
        .collect();
    format!(
        "[[pools]]\nname = \"p1\"\nplugin = \"examples.replica.p1\"\nlisten = \"127.0.0.1:0\"\ntoken_sha256 = [{}]\n",
        list.join(", ")
    )
}

#[test]
fn serve_runs_a_configured_pool_and_a_reload_admits_the_next_token() {
    let fixture = Fixture::new(&[], "", &pools(&[TOKEN]));
    let serve = fixture.serve(&[]);
    let listening =
        serve.wait_for_log(|line| line["fields"]["message"] == "pool listening for members");
    let address = listening["fields"]["listen"].as_str().unwrap().to_owned();

    let dir = tempfile::tempdir().unwrap();
    let current = dir.path().join("current");
    std::fs::write(&current, TOKEN).unwrap();
    let first = MemberSpec::new(dir.path(), &address, &current, "first");
    let _first = Running(first.spawn());
    serve.wait_for_log(|line| {
        line["fields"]["message"] == "pool member ready: calls go to it"
            && line["fields"]["member"] == "first"
    });
    let (code, out, err) =
        fixture.maitool(&["call", "p1_echo", "--args", r#"{"text": "from the pool"}"#]);
    assert_eq!((code, out.trim()), (0, "from the pool"), "{err}");

    // `status` shows the pool, its registered version and the member with its call.
    let (code, out, err) = fixture.maitool(&["status"]);
    assert_eq!(code, 0, "{err}");
    let pool_line = format!(
        "p1               examples.replica.p1 on {address} members=1 ready=1 version=1.0.0"
    );
    assert!(out.contains(&pool_line), "{out}");
    assert!(
        out.lines()
            .any(|line| line.trim_start().starts_with("first")
                && line.contains("ready")
                && line.contains("in_flight=0 calls=1 version=1.0.0")),
        "{out}"
    );
    let (code, out, err) = fixture.maitool(&["status", "--json"]);
    assert_eq!(code, 0, "{err}");
    let status: serde_json::Value = serde_json::from_str(&out).unwrap();
    let member = &status["pools"][0]["members"][0];
    assert_eq!(member["name"], "first", "{status:#}");
    assert_eq!(member["state"], "ready");
    assert_eq!(member["calls"], 1);
    assert!(
        member["address"]
            .as_str()
            .unwrap()
            .starts_with("127.0.0.1:"),
        "{member}"
    );

    // The next token, admitted by a reload that keeps the connected member.
    let next = dir.path().join("next");
    std::fs::write(&next, "pool-token-next").unwrap();
    let text = std::fs::read_to_string(&fixture.config).unwrap();
    std::fs::write(
        &fixture.config,
        text.replace(&pools(&[TOKEN]), &pools(&[TOKEN, "pool-token-next"])),
    )
    .unwrap();
    let (code, out, err) = fixture.maitool(&["reload"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("pools reconfigured p1"), "{out}");
    let second = MemberSpec::new(dir.path(), &address, &next, "second");
    let _second = Running(second.spawn());
    serve.wait_for_log(|line| {
        line["fields"]["message"] == "pool member ready: calls go to it"
            && line["fields"]["member"] == "second"
    });
    let lines = serve.stop();
    assert!(
        !lines
            .iter()
            .any(|line| line.contains("\"member\":\"first\"")
                && line.contains("disconnected")
                && !line.contains("the pool was stopped")),
        "the reload kept the first member:\n{}",
        lines.join("\n")
    );
    assert!(
        lines
            .iter()
            .any(|line| line.contains("\"member\":\"first\"")
                && line.contains("the pool was stopped")),
        "serve's stop disconnects the members:\n{}",
        lines.join("\n")
    );
}
