use super::*;

fn installed(packages: &[(&str, &str)]) -> PluginOutcome {
    PluginOutcome::Installed {
        added: packages
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect(),
    }
}

#[tokio::test]
async fn a_stamp_reads_back_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let mut stamp = Stamp::new();
    stamp.base = Some(BaseStamp {
        python: "/usr/bin/python3.12".into(),
        python_version: "3.12.1".into(),
        installer: "uv 0.13.9".into(),
        runner: vec!["maibot==1.3.15".into()],
        baseline: vec!["numpy==2.5.5".into()],
    });
    stamp.plugins.insert(
        "a".into(),
        PluginStamp {
            requires: vec!["cowsay==6.1".into()],
            outcome: installed(&[("cowsay", "6.1")]),
        },
    );
    stamp.plugins.insert(
        "b".into(),
        PluginStamp {
            requires: vec!["pydantic<2".into()],
            outcome: PluginOutcome::Refused {
                reason: "why".into(),
            },
        },
    );
    stamp.write(dir.path()).await.unwrap();
    assert_eq!(Stamp::read(dir.path()).await, stamp);
    assert!(!dir.path().join(".maitool-env.json.partial").exists());
    assert_eq!(stamp.owner_of("cowsay").map(|(id, _)| id), Some("a"));
    assert_eq!(stamp.owner_of("numpy"), None);
}

#[tokio::test]
async fn a_missing_broken_or_foreign_stamp_reads_as_empty() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(Stamp::read(dir.path()).await, Stamp::new());
    std::fs::write(dir.path().join(STAMP_FILE), "{not json").unwrap();
    assert_eq!(Stamp::read(dir.path()).await, Stamp::new());
    std::fs::write(
        dir.path().join(STAMP_FILE),
        r#"{"format": 99, "plugins": {}}"#,
    )
    .unwrap();
    assert_eq!(Stamp::read(dir.path()).await, Stamp::new());
}

#[tokio::test]
async fn a_stamp_that_cannot_be_written_says_where_and_keeps_the_os_reason() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-venv");
    let err = Stamp::new().write(&missing).await.unwrap_err();
    assert!(err.to_string().contains("no-such-venv"), "{err}");
    assert_eq!(
        crate::error_text::io_source(&err).kind(),
        std::io::ErrorKind::NotFound
    );
}
