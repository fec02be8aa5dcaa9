use std::path::{Path, PathBuf};

use super::kernel::missing_below;
use super::processes::{own_v1_path, pids_v1_mount};
use super::{
    NetworkAccess, RunnerNeeds, SandboxConfigError, SandboxHome, SandboxMode, SandboxSettings,
    SandboxState, prepare,
};

#[test]
fn the_pids_hierarchy_is_found_in_mountinfo_and_the_hosts_place_in_it() {
    let mountinfo = "\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw";
    assert_eq!(
        pids_v1_mount(mountinfo),
        Some(PathBuf::from("/sys/fs/cgroup/pids"))
    );
    assert_eq!(
        pids_v1_mount("41 31 0:38 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw"),
        None,
        "cgroup v2 is not used"
    );
    let cgroups = "9:name=systemd:/\n8:pids:/user.slice/bot\n4:memory:/m\n0::/";
    assert_eq!(
        own_v1_path(cgroups, "pids").as_deref(),
        Some("/user.slice/bot")
    );
    assert_eq!(own_v1_path(cgroups, "cpu"), None);
}

#[test]
fn an_older_kernel_is_missing_what_later_abis_brought() {
    assert!(missing_below(7).is_empty());
    assert!(missing_below(6).is_empty());
    let abi3 = missing_below(3);
    assert_eq!(abi3.len(), 3, "{abi3:?}");
    assert!(
        abi3[0].starts_with("TCP connect and bind rules"),
        "{abi3:?}"
    );
    assert!(
        abi3[2].starts_with("signal and abstract-socket scoping"),
        "{abi3:?}"
    );
}

#[test]
fn settings_resolve_paths_against_the_config_and_refuse_port_zero() {
    let settings = SandboxSettings {
        read: vec!["models".into(), "/opt/shared".into()],
        write: vec!["cache".into()],
        connect_ports: vec![5432, 443],
        ..SandboxSettings::default()
    };
    let resolved = settings.resolve(Path::new("/etc/bot")).unwrap();
    assert_eq!(
        resolved.read,
        vec![
            PathBuf::from("/etc/bot/models"),
            PathBuf::from("/opt/shared")
        ]
    );
    assert_eq!(resolved.write, vec![PathBuf::from("/etc/bot/cache")]);
    assert_eq!(resolved.connect_ports(), vec![80, 443, 5432]);
    let zero = SandboxSettings {
        bind_ports: vec![8080, 0],
        ..SandboxSettings::default()
    };
    assert_eq!(
        zero.resolve(Path::new("/")).unwrap_err(),
        ("bind_ports", SandboxConfigError::PortZero)
    );
    let empty = SandboxSettings {
        write: vec![PathBuf::new()],
        ..SandboxSettings::default()
    };
    assert_eq!(
        empty.resolve(Path::new("/")).unwrap_err(),
        ("write", SandboxConfigError::EmptyPath)
    );
}

#[test]
fn the_toml_keys_parse_and_unknown_ones_are_refused() {
    let settings: SandboxSettings = toml::from_str(
        "mode = \"required\"\nnetwork = \"all\"\nbind_ports = [8080]\nmax_processes = 0\n",
    )
    .unwrap();
    assert_eq!(settings.mode, Some(SandboxMode::Required));
    assert_eq!(settings.network, NetworkAccess::All);
    assert_eq!(settings.bind_ports, vec![8080]);
    assert_eq!(settings.max_processes, 0);
    assert_eq!(settings.max_open_files, 4096, "defaults fill the rest");
    let err = toml::from_str::<SandboxSettings>("ports = [1]").unwrap_err();
    assert!(err.to_string().contains("unknown field `ports`"), "{err}");
}

#[test]
fn off_by_the_operator_says_so_and_applies_nothing() {
    let settings = SandboxSettings::default();
    let off = prepare(
        "r",
        &settings,
        SandboxMode::Off,
        &RunnerNeeds::default(),
        &SandboxHome::new("r"),
    )
    .unwrap();
    assert_eq!(off.status().state, SandboxState::Off);
    assert!(
        off.status()
            .detail
            .starts_with("off by the operator's choice ([plugin_runtime] sandbox = \"off\")"),
        "{}",
        off.status().detail
    );
    let own = SandboxSettings {
        mode: Some(SandboxMode::Off),
        ..SandboxSettings::default()
    };
    let off = prepare(
        "r",
        &own,
        SandboxMode::Required,
        &RunnerNeeds::default(),
        &SandboxHome::new("r"),
    )
    .unwrap();
    assert!(
        off.status()
            .line()
            .starts_with("off: off by the operator's choice (the runner's")
    );
}

#[test]
fn a_sandbox_lists_what_it_grants_and_its_private_temporary_folder() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let settings = SandboxSettings {
        network: NetworkAccess::All,
        read: vec![dir.path().join("missing")],
        ..SandboxSettings::default()
    };
    let needs = RunnerNeeds {
        read: vec![PathBuf::from("/bin/true")],
        write: vec![data.clone()],
    };
    let home = SandboxHome::new("a/b");
    let launch = prepare("a/b", &settings, SandboxMode::On, &needs, &home).unwrap();
    let status = launch.status().clone();
    assert_eq!(status.network, "all");
    assert!(status.connect_ports.is_empty());
    assert!(status.read.contains(&"/bin/true".to_owned()), "{status:?}");
    assert!(
        !status.read.iter().any(|p| p.ends_with("missing")),
        "a missing path is skipped: {status:?}"
    );
    assert_eq!(status.write[0], data.display().to_string());
    let temp = status.write[1].clone();
    assert!(
        Path::new(&temp).is_dir() && temp.contains("maitool-a_b-"),
        "{status:?}"
    );
    std::fs::create_dir(Path::new(&temp).join("left")).unwrap();
    std::fs::write(Path::new(&temp).join("left/over.txt"), "x").unwrap();
    drop(launch);
    assert_eq!(
        std::fs::read_dir(&temp).unwrap().count(),
        0,
        "a launch's files go with it"
    );
    let next = prepare("a/b", &settings, SandboxMode::On, &needs, &home).unwrap();
    assert_eq!(
        next.status().write,
        status.write,
        "the next launch gets the same folder"
    );
    drop(next);
    drop(home);
    assert!(
        !Path::new(&temp).exists(),
        "the temporary folder goes with the runner"
    );
}
