use std::collections::{BTreeMap, BTreeSet};

use super::*;
use crate::plugin::config::MaibotLaunch;

const MAIBOT_REASON: &str =
    "manifest 校验失败: Host 版本不兼容: 版本 1.3.15 高于最大支持 1.0.0 (当前 Host: 1.3.15)";

fn maibot_runner(forced: bool) -> ResolvedRunner {
    ResolvedRunner {
        maibot: Some(MaibotLaunch {
            plugin_dirs: Vec::new(),
            source: None,
            instance_dir: "/i".into(),
            host_version: None,
            force_plugin_compatibility: forced,
            folders: BTreeMap::new(),
            overridden: BTreeSet::new(),
            environment: crate::maibot_env::EnvSettings::resolve(
                &Default::default(),
                Some("python3".into()),
                std::path::Path::new("/c"),
                std::path::Path::new("/d"),
                "mb",
            )
            .unwrap(),
            dependencies: BTreeMap::new(),
        }),
        ..ResolvedRunner::maitool("mb", "python3")
    }
}

#[test]
fn maibots_version_errors_get_the_key_next_to_the_original_text() {
    for reason in [
        MAIBOT_REASON,
        "manifest 校验失败: Host 版本不兼容: 版本 1.3.15 低于最小要求 9.0.0 (当前 Host: 1.3.15)",
    ] {
        let hinted = with_hint(reason.to_owned(), &maibot_runner(false));
        assert!(hinted.starts_with(reason), "{hinted}");
        assert!(
            hinted.ends_with(
                "set force_plugin_compatibility = true in the [[runners]] table of runner \"mb\" in maitool.toml)"
            ),
            "{hinted}"
        );
    }
}

#[test]
fn other_reasons_forced_runners_and_maitool_runners_get_no_hint() {
    let other = "manifest 校验失败: Manifest 版本不兼容: manifest_version=1，仅支持 2";
    assert_eq!(with_hint(other.to_owned(), &maibot_runner(false)), other);
    assert_eq!(
        with_hint(MAIBOT_REASON.to_owned(), &maibot_runner(true)),
        MAIBOT_REASON
    );
    assert_eq!(
        with_hint(
            MAIBOT_REASON.to_owned(),
            &ResolvedRunner::maitool("r", "/bin/r")
        ),
        MAIBOT_REASON
    );
}
