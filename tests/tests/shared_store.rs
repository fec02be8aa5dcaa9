//! One conformance suite for the state hosts can share, run on both backends: embedded
//! (SQLite and memory, always) and PostgreSQL (when `MAITOOL_TEST_POSTGRES_URL` names a server;
//! `.ci/run` starts one and requires it). Every case runs against each backend through the
//! same public seams the host uses (`KvStore`, `SessionStateStore`, `Discovery`), each
//! PostgreSQL case in a database of its own.
//!
//! Where the backends may legitimately differ (nothing does yet) results are compared as sets.

use std::collections::BTreeSet;
use std::sync::Arc;

use maitool_e2e::postgres::{TestDatabase, fresh_database};
use maitool_host::builtin::{
    ContextSearchResult, DeferredTool, Discovery, MemoryDiscoveries, MemorySessionStates,
    PostgresDiscoveries, PostgresSessionStates, SessionState, SessionStateStore,
};
use maitool_host::plugin::KvStore;
use maitool_host::postgres::{Database, PgError, SCHEMA_VERSION};
use serde_json::json;

/// One backend under test: what a host would open, and a second opening standing for another
/// host on the same store.
enum Backend {
    Embedded {
        dir: tempfile::TempDir,
        sessions: Arc<MemorySessionStates>,
        discoveries: Arc<MemoryDiscoveries>,
    },
    Postgres {
        test: TestDatabase,
        database: Database,
    },
}

impl Backend {
    fn embedded() -> Backend {
        Backend::Embedded {
            dir: tempfile::tempdir().unwrap(),
            sessions: Arc::default(),
            discoveries: Arc::default(),
        }
    }

    async fn postgres(test: &str) -> Option<Backend> {
        let test = fresh_database(&format!("conformance_{test}")).await?;
        let database = Database::new(&test.url, 8).unwrap();
        Some(Backend::Postgres { test, database })
    }

    /// The plugins' KV store, as a host opens it (each call: another host's handle).
    async fn kv(&self) -> KvStore {
        match self {
            Backend::Embedded { dir, .. } => KvStore::open(&dir.path().join("plugin_kv.sqlite3"))
                .await
                .unwrap(),
            // Its own pool, as another host's would be.
            Backend::Postgres { test, .. } => {
                KvStore::postgres(Database::new(&test.url, 4).unwrap())
            }
        }
    }

    /// Session loop state (each call on PostgreSQL: another host's handle; embedded state is
    /// one host's memory, so the same one).
    fn sessions(&self) -> Arc<dyn SessionStateStore> {
        match self {
            Backend::Embedded { sessions, .. } => sessions.clone(),
            Backend::Postgres { test, .. } => Arc::new(PostgresSessionStates::new(
                Database::new(&test.url, 4).unwrap(),
            )),
        }
    }

    fn discovery(&self) -> Discovery {
        match self {
            Backend::Embedded { discoveries, .. } => Discovery::with_store(discoveries.clone()),
            Backend::Postgres { test, .. } => Discovery::with_store(Arc::new(
                PostgresDiscoveries::new(Database::new(&test.url, 4).unwrap()),
            )),
        }
    }

    async fn finish(self) {
        if let Backend::Postgres { test, database } = self {
            drop(database);
            test.drop_database().await;
        }
    }
}

maitool_e2e::conformance!(
    embedded = embedded;
    kv_values_round_trip_per_plugin,
    kv_list_takes_the_prefix_literally_and_sorts_by_bytes,
    kv_a_value_set_through_one_handle_is_read_through_another,
    kv_dump_and_load_copy_every_pair,
    session_state_starts_default_and_keeps_each_change,
    session_state_changes_from_many_tasks_are_never_lost,
    discoveries_follow_searches_and_context,
);

async fn kv_values_round_trip_per_plugin(backend: &Backend) {
    let kv = backend.kv().await;
    let values = [
        json!(null),
        json!(true),
        json!(-12),
        json!(9_007_199_254_740_993_u64),
        json!(1.5),
        json!("文本 with 'quotes' and \u{0}nul"),
        json!([1, "two", {"three": [3]}]),
        json!({"nested": {"k": "v", "list": []}, "emoji": "🙂"}),
    ];
    for (index, value) in values.iter().enumerate() {
        kv.set("plugin.a", &format!("k{index}"), value)
            .await
            .unwrap();
    }
    for (index, value) in values.iter().enumerate() {
        assert_eq!(
            kv.get("plugin.a", &format!("k{index}"))
                .await
                .unwrap()
                .as_ref(),
            Some(value),
            "value {index}"
        );
    }
    // Another plugin's namespace is separate.
    assert_eq!(kv.get("plugin.b", "k1").await.unwrap(), None);
    kv.set("plugin.b", "k1", &json!("b's")).await.unwrap();
    assert_eq!(kv.get("plugin.a", "k1").await.unwrap(), Some(json!(true)));
    // Overwrite, delete, delete again.
    kv.set("plugin.a", "k1", &json!(false)).await.unwrap();
    assert_eq!(kv.get("plugin.a", "k1").await.unwrap(), Some(json!(false)));
    assert!(kv.delete("plugin.a", "k1").await.unwrap());
    assert!(!kv.delete("plugin.a", "k1").await.unwrap());
    assert_eq!(kv.get("plugin.a", "k1").await.unwrap(), None);
    assert_eq!(kv.get("plugin.b", "k1").await.unwrap(), Some(json!("b's")));
}

async fn kv_list_takes_the_prefix_literally_and_sorts_by_bytes(backend: &Backend) {
    let kv = backend.kv().await;
    for key in [
        "a_1", "aX1", "a%2", "A_3", "a_b", "a", "b", "a_\u{e4}", "a_Z",
    ] {
        kv.set("p", key, &json!(key)).await.unwrap();
    }
    kv.set("other", "a_other", &json!(0)).await.unwrap();
    // `_` and `%` are no wildcards, case matters, and the order is the keys' bytes.
    assert_eq!(
        kv.list("p", "a_").await.unwrap(),
        vec!["a_1", "a_Z", "a_b", "a_\u{e4}"]
    );
    assert_eq!(kv.list("p", "a%").await.unwrap(), vec!["a%2"]);
    assert_eq!(
        kv.list("p", "").await.unwrap(),
        vec![
            "A_3", "a", "a%2", "aX1", "a_1", "a_Z", "a_b", "a_\u{e4}", "b"
        ]
    );
    assert!(kv.list("p", "zz").await.unwrap().is_empty());
}

async fn kv_a_value_set_through_one_handle_is_read_through_another(backend: &Backend) {
    let (first, second) = (backend.kv().await, backend.kv().await);
    first.set("p", "shared", &json!({"n": 1})).await.unwrap();
    assert_eq!(
        second.get("p", "shared").await.unwrap(),
        Some(json!({"n": 1}))
    );
    second.set("p", "shared", &json!({"n": 2})).await.unwrap();
    assert_eq!(
        first.get("p", "shared").await.unwrap(),
        Some(json!({"n": 2}))
    );
    assert!(first.delete("p", "shared").await.unwrap());
    assert_eq!(second.list("p", "").await.unwrap(), Vec::<String>::new());
}

async fn kv_dump_and_load_copy_every_pair(backend: &Backend) {
    // An embedded store as a user has it, copied into the backend under test.
    let source_dir = tempfile::tempdir().unwrap();
    let source = KvStore::open(&source_dir.path().join("old.sqlite3"))
        .await
        .unwrap();
    for plugin in ["a", "b.c", "中文"] {
        for index in 0..25 {
            source
                .set(
                    plugin,
                    &format!("key-{index:02}"),
                    &json!({"plugin": plugin, "i": index}),
                )
                .await
                .unwrap();
        }
    }
    let dumped = source.backend().dump().await.unwrap();
    assert_eq!(dumped.len(), 75);
    let target = backend.kv().await;
    target
        .set("a", "key-00", &json!("overwritten by the copy"))
        .await
        .unwrap();
    target.backend().load(dumped.clone()).await.unwrap();
    assert_eq!(
        target.backend().dump().await.unwrap(),
        dumped,
        "every pair, time and text"
    );
    assert_eq!(
        target.get("中文", "key-24").await.unwrap(),
        Some(json!({"plugin": "中文", "i": 24}))
    );
}

async fn session_state_starts_default_and_keeps_each_change(backend: &Backend) {
    let (host_a, host_b) = (backend.sessions(), backend.sessions());
    assert_eq!(host_a.load("s1").await.unwrap(), SessionState::default());
    host_a
        .update("s1", &mut |state| {
            state.consecutive_waits = 2;
            state.focused_stream = Some("stream-9".into());
            state.last_end_reason = "结束".into();
        })
        .await
        .unwrap();
    let seen = host_b.load("s1").await.unwrap();
    assert_eq!(
        (
            seen.consecutive_waits,
            seen.focused_stream.as_deref(),
            seen.last_end_reason.as_str()
        ),
        (2, Some("stream-9"), "结束")
    );
    host_b
        .update("s1", &mut |state| state.rounds_ended += 1)
        .await
        .unwrap();
    let seen = host_a.load("s1").await.unwrap();
    assert_eq!((seen.consecutive_waits, seen.rounds_ended), (2, 1));
    assert_eq!(host_a.load("s2").await.unwrap(), SessionState::default());
}

async fn session_state_changes_from_many_tasks_are_never_lost(backend: &Backend) {
    // Two hosts' handles, each changing one session from many tasks at once: a store that
    // reads and writes without locking the session loses increments.
    let hosts = [backend.sessions(), backend.sessions()];
    let mut tasks = Vec::new();
    for index in 0..40 {
        let store = hosts[index % 2].clone();
        tasks.push(tokio::spawn(async move {
            store
                .update("busy", &mut |state| state.rounds_ended += 1)
                .await
                .unwrap();
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    assert_eq!(hosts[0].load("busy").await.unwrap().rounds_ended, 40);
}

fn tool(name: &str) -> DeferredTool {
    DeferredTool {
        name: name.into(),
        description: format!("{name} tool"),
    }
}

async fn discoveries_follow_searches_and_context(backend: &Backend) {
    let (host_a, host_b) = (backend.discovery(), backend.discovery());
    let set = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<BTreeSet<_>>();
    let newly = host_a
        .record_search("s", "ts1", &["translate".into(), "chart".into()])
        .await
        .unwrap();
    assert_eq!(newly, vec!["translate", "chart"]);
    // The other host sees the search, and finds nothing new in a repeat of it.
    assert_eq!(
        host_b.discovered("s").await.unwrap(),
        set(&["chart", "translate"])
    );
    let newly = host_b
        .record_search("s", "ts2", &["translate".into()])
        .await
        .unwrap();
    assert!(newly.is_empty(), "{newly:?}");
    // A pool narrows discovery to tools still deferred, wherever it was set.
    let discovered = host_b
        .set_deferred_pool("s", vec![tool("translate"), tool("weather")])
        .await
        .unwrap();
    assert_eq!(discovered, set(&["translate"]));
    assert_eq!(host_a.discovered("s").await.unwrap(), set(&["translate"]));
    // The context kept ts1 only, with names recovered from its structured content.
    host_a
        .sync_with_context(
            "s",
            &[ContextSearchResult {
                call_id: "ts1".into(),
                structured_content: Some(json!({"matched_tool_names": ["weather"]})),
                content: String::new(),
            }],
        )
        .await
        .unwrap();
    assert_eq!(host_b.discovered("s").await.unwrap(), set(&["weather"]));
    assert!(host_b.discovered("other").await.unwrap().is_empty());
    host_b.forget_session("s").await.unwrap();
    assert!(host_a.discovered("s").await.unwrap().is_empty());
}

// PostgreSQL only: the schema and its migrations.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_hosts_starting_together_migrate_once() {
    let Some(test) = fresh_database("migrations_race").await else {
        return;
    };
    let hosts: Vec<Database> = (0..6)
        .map(|_| Database::new(&test.url, 2).unwrap())
        .collect();
    let checks = hosts.iter().map(Database::check);
    for outcome in futures::future::join_all(checks).await {
        outcome.unwrap();
    }
    let client = test.connect().await;
    let versions: Vec<i32> = client
        .query(
            "SELECT version FROM maitool_schema_migrations ORDER BY version",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    assert_eq!(versions, (1..=SCHEMA_VERSION).collect::<Vec<_>>());
    drop(hosts);
    drop(client);
    test.drop_database().await;
}

#[tokio::test]
async fn postgres_a_schema_newer_than_this_build_is_refused_by_name() {
    let Some(test) = fresh_database("newer_schema").await else {
        return;
    };
    Database::new(&test.url, 1).unwrap().check().await.unwrap();
    let client = test.connect().await;
    client
        .execute(
            "INSERT INTO maitool_schema_migrations (version, name) VALUES ($1, 'from the future')",
            &[&(SCHEMA_VERSION + 1)],
        )
        .await
        .unwrap();
    let kv = KvStore::postgres(Database::new(&test.url, 1).unwrap());
    let error = kv.get("p", "k").await.unwrap_err();
    let text = error.to_string();
    assert!(
        text.contains(&format!(
            "schema is at version {}, newer than this maitool knows ({SCHEMA_VERSION})",
            SCHEMA_VERSION + 1
        )),
        "{text}"
    );
    assert!(matches!(
        error,
        maitool_host::plugin::KvError::Postgres(PgError::NewerSchema { .. })
    ));
    drop(client);
    test.drop_database().await;
}

#[tokio::test]
async fn postgres_url_env_reads_the_connection_string_and_the_host_starts_on_it() {
    let Some(test) = fresh_database("url_env").await else {
        return;
    };
    // The variable the suite itself was given: `url_env` reads it as the host would.
    let section: maitool_host::config::StoreSection = toml::from_str(&format!(
        "backend = \"postgres\"\nurl_env = \"{}\"\n",
        maitool_e2e::postgres::URL_VAR
    ))
    .unwrap();
    let url = section.postgres_url().unwrap().unwrap();
    assert_eq!(url, std::env::var(maitool_e2e::postgres::URL_VAR).unwrap());

    // A host on the test's database: a plugin's value set through its KV store is in the
    // database, where another host reads it.
    let dir = tempfile::tempdir().unwrap();
    let config = maitool_host::config::HostConfig::parse(
        &format!(
            "[host]\nenable_builtin = false\n[mcp]\nenable = false\n[store]\nbackend = \"postgres\"\nurl = {:?}\n",
            test.url
        ),
        &dir.path().join("maitool.toml"),
    )
    .unwrap()
    .resolve(None, dir.path())
    .unwrap();
    let shared =
        maitool_host::shared_state::SharedState::from_config(&config.config.store).unwrap();
    let kv = shared.kv_store(&config.config.host.data_dir).await.unwrap();
    kv.set("examples.kv", "visits", &json!(3)).await.unwrap();
    assert!(
        !config
            .config
            .host
            .data_dir
            .join("plugin_kv.sqlite3")
            .exists(),
        "no SQLite file when the store is PostgreSQL"
    );
    let client = test.connect().await;
    let stored: String = client
        .query_one(
            "SELECT value FROM plugin_kv WHERE plugin_id = 'examples.kv' AND key = 'visits'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(stored, "3");
    drop((client, kv, shared));
    test.drop_database().await;
}

// Component toggles: cached in each host's registry, so PostgreSQL's copy must reach the other
// hosts (LISTEN/NOTIFY). Two plugin runtimes stand for two hosts on one database.

async fn toggle_host(
    shared: &maitool_host::shared_state::SharedState,
) -> Arc<maitool_host::plugin::PluginRuntime> {
    use maitool_host::plugin::{CapabilityService, MemorySink, PluginRuntime, RuntimeOptions};
    let capabilities = Arc::new(CapabilityService::new(
        Arc::new(MemorySink::default()),
        KvStore::in_memory().unwrap(),
    ));
    let runtime = PluginRuntime::start_with_options(
        Default::default(),
        Vec::new(),
        capabilities,
        RuntimeOptions {
            toggles: shared.toggle_store(),
            ..RuntimeOptions::default()
        },
    )
    .unwrap();
    let echo = maitool_protocol::wire::methods::ComponentDeclaration {
        name: "echo".into(),
        component_type: "TOOL".into(),
        metadata: json!({"description": "echo"}).as_object().cloned().unwrap(),
        ..Default::default()
    };
    runtime
        .components()
        .register_plugin("examples.echo", &[echo])
        .unwrap();
    runtime
}

/// Waits up to a second for `check` to hold on `runtime`'s registry.
async fn within_a_second(
    runtime: &maitool_host::plugin::PluginRuntime,
    what: &str,
    check: impl Fn(&maitool_host::plugin::ComponentRegistry) -> bool,
) {
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(1);
    while !check(runtime.components()) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{what} not seen within a second"
        );
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_toggle_made_on_one_host_is_obeyed_by_another_within_a_second() {
    let Some(test) = fresh_database("toggles").await else {
        return;
    };
    let shared_a =
        maitool_host::shared_state::SharedState::Postgres(Database::new(&test.url, 4).unwrap());
    let shared_b =
        maitool_host::shared_state::SharedState::Postgres(Database::new(&test.url, 4).unwrap());
    let (host_a, host_b) = (toggle_host(&shared_a).await, toggle_host(&shared_b).await);
    let _watch_a = shared_a.watch_toggles(&host_a).unwrap();
    let _watch_b = shared_b.watch_toggles(&host_b).unwrap();
    let full = "examples.echo.echo";
    // Both listen before the first change (each reads the table once it listens).
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;

    assert_eq!(
        host_a
            .set_component_enabled("echo", false, None)
            .await
            .unwrap(),
        full
    );
    within_a_second(&host_b, "a global disable", |c| !c.is_enabled(full)).await;
    host_b
        .set_component_enabled(full, true, None)
        .await
        .unwrap();
    within_a_second(&host_a, "a global enable", |c| c.is_enabled(full)).await;
    host_a
        .set_component_enabled(full, false, Some("session-7"))
        .await
        .unwrap();
    within_a_second(&host_b, "a per-session disable", |c| {
        !c.is_enabled_in_session(full, Some("session-7"))
            && c.is_enabled_in_session(full, Some("s8"))
    })
    .await;

    // A third host starting later reads what is in force.
    let shared_c =
        maitool_host::shared_state::SharedState::Postgres(Database::new(&test.url, 2).unwrap());
    let host_c = toggle_host(&shared_c).await;
    let _watch_c = shared_c.watch_toggles(&host_c).unwrap();
    within_a_second(&host_c, "the toggles in force at its start", |c| {
        !c.is_enabled_in_session(full, Some("session-7")) && c.is_enabled(full)
    })
    .await;

    // A name that resolves to nothing is refused before anything is written.
    let error = host_a
        .set_component_enabled("nope", false, None)
        .await
        .unwrap_err();
    assert!(
        error.to_string().contains("no component named nope"),
        "{error}"
    );
    let client = test.connect().await;
    let rows: i64 = client
        .query_one("SELECT count(*) FROM component_toggle", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(rows, 1, "only the per-session disable is stored");
    for host in [host_a, host_b, host_c] {
        host.shutdown().await;
    }
    drop(client);
    test.drop_database().await;
}

#[tokio::test]
async fn postgres_an_unreachable_database_fails_a_toggle_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("host={} user=maitool dbname=gone", dir.path().display());
    let shared = maitool_host::shared_state::SharedState::Postgres(Database::new(&url, 1).unwrap());
    let host = toggle_host(&shared).await;
    let error = host
        .set_component_enabled("echo", false, None)
        .await
        .unwrap_err();
    let text = chain(&error);
    assert!(text.contains("component toggles are unavailable"), "{text}");
    assert!(text.contains("/gone is unreachable"), "{text}");
    assert!(
        host.components().is_enabled("examples.echo.echo"),
        "nothing changed here either"
    );
    host.shutdown().await;
}

/// An error and its sources, as the host prints them.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

// `maitool store copy`: an instance's key-value pairs moved into PostgreSQL, nothing lost.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_store_copy_moves_every_plugin_pair_and_says_how_many() {
    let Some(test) = fresh_database("store_copy").await else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    // The single-host instance, as it has run: its pairs in data/plugin_kv.sqlite3.
    let source = KvStore::open(&data.join("plugin_kv.sqlite3"))
        .await
        .unwrap();
    for plugin in ["examples.notes", "社区.插件"] {
        for index in 0..40 {
            source
                .set(
                    plugin,
                    &format!("note:{index}"),
                    &json!({"text": format!("第{index}条"), "n": index}),
                )
                .await
                .unwrap();
        }
    }
    let before = source.backend().dump().await.unwrap();
    drop(source);
    let config = dir.path().join("maitool.toml");
    std::fs::write(
        &config,
        "[host]\nenable_builtin = false\n[mcp]\nenable = false\n[store]\nbackend = \"postgres\"\nurl_env = \"MAITOOL_STORE_COPY_URL\"\n",
    )
    .unwrap();
    let maitool = maitool_e2e::workspace_bin("maitool");
    let run = |envs: Vec<(&str, String)>| {
        let mut command = std::process::Command::new(&maitool);
        command
            .arg("--config")
            .arg(&config)
            .args(["store", "copy"])
            .env_remove("MAITOOL_STORE_COPY_URL");
        for (key, value) in envs {
            command.env(key, value);
        }
        command.output().unwrap()
    };

    let copied = run(vec![("MAITOOL_STORE_COPY_URL", test.url.clone())]);
    let stdout = String::from_utf8_lossy(&copied.stdout);
    assert!(
        copied.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&copied.stderr)
    );
    assert!(
        stdout.contains("copied 80 plugin key-value pairs from"),
        "{stdout}"
    );
    let target = KvStore::postgres(Database::new(&test.url, 2).unwrap());
    assert_eq!(
        target.backend().dump().await.unwrap(),
        before,
        "every pair, value and time"
    );
    assert_eq!(
        target.get("社区.插件", "note:39").await.unwrap(),
        Some(json!({"text": "第39条", "n": 39}))
    );

    // Without the variable, a configuration error naming it (exit 2), and nothing copied.
    let refused = run(Vec::new());
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("environment variable MAITOOL_STORE_COPY_URL is not set"),
        "{stderr}"
    );
    // A database that is down: exit 3, naming it.
    let gone = tempfile::tempdir().unwrap();
    let down = run(vec![(
        "MAITOOL_STORE_COPY_URL",
        format!("host={} user=maitool dbname=gone", gone.path().display()),
    )]);
    assert_eq!(down.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&down.stderr);
    assert!(stderr.contains("/gone is unreachable"), "{stderr}");
    drop(target);
    test.drop_database().await;
}

#[test]
fn store_copy_refuses_an_embedded_store_and_a_missing_file_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("maitool.toml");
    let maitool = maitool_e2e::workspace_bin("maitool");
    let run = |text: &str| {
        std::fs::write(&config, text).unwrap();
        std::process::Command::new(&maitool)
            .arg("--config")
            .arg(&config)
            .args(["store", "copy"])
            .output()
            .unwrap()
    };
    let embedded = run("[host]\nenable_builtin = false\n");
    assert_eq!(embedded.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&embedded.stderr);
    assert!(stderr.contains("[store] backend is \"sqlite\""), "{stderr}");
    // A server that need not exist: the missing file is found before any connection.
    let no_file = run(
        "[host]\nenable_builtin = false\n[store]\nbackend = \"postgres\"\nurl = \"host=/nonexistent dbname=x\"\n",
    );
    assert_eq!(no_file.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&no_file.stderr);
    assert!(
        stderr.contains("plugin_kv.sqlite3 does not exist: nothing to copy"),
        "{stderr}"
    );
}

// Whole hosts on one database: what one host's built-in tools record for a session, the
// other's obey.

fn host_config(dir: &std::path::Path, name: &str, url: &str) -> maitool_host::LoadedConfig {
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(
        &path,
        format!(
            "[host]\ndata_dir = \"{name}-data\"\ncontrol_socket = \"{name}.sock\"\n\
             [builtin]\ndatabase = \"{name}-builtin.sqlite3\"\n[mcp]\nenable = false\n\
             [store]\nbackend = \"postgres\"\nurl = {url:?}\n"
        ),
    )
    .unwrap();
    maitool_host::HostConfig::load(&path).unwrap()
}

async fn invoke(
    host: &maitool_host::Host,
    tool: &str,
    args: serde_json::Value,
    call_id: &str,
) -> maitool_protocol::ToolExecutionResult {
    let invocation =
        maitool_protocol::ToolInvocation::new(tool, args.as_object().cloned().unwrap())
            .with_call_id(call_id);
    let context = maitool_protocol::ToolExecutionContext {
        session_id: "chat-1".into(),
        ..Default::default()
    };
    host.registry.invoke(invocation, &context).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_two_hosts_share_a_sessions_wait_streak_and_discoveries() {
    let Some(test) = fresh_database("two_hosts").await else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let host_a = maitool_host::Host::start(host_config(dir.path(), "a", &test.url))
        .await
        .unwrap();
    let host_b = maitool_host::Host::start(host_config(dir.path(), "b", &test.url))
        .await
        .unwrap();

    // A tool_search through one host exposes the tool through the other.
    let found = invoke(
        &host_a,
        "tool_search",
        json!({"query": "view_forward_message"}),
        "ts-1",
    )
    .await;
    assert!(found.success, "{}", found.error_message);
    let availability = maitool_protocol::ToolAvailabilityContext {
        session_id: "chat-1".into(),
        ..Default::default()
    };
    let exposure = maitool_host::builtin::build_exposure(
        &host_b.registry,
        host_b.builtin().unwrap().discovery(),
        &availability,
        maitool_host::builtin::Stage::Action,
    )
    .await
    .unwrap();
    assert!(
        exposure.is_exposed("view_forward_message"),
        "discovered through host a"
    );

    // A wait streak continues across hosts.
    let first = invoke(&host_a, "wait", json!({"seconds": 5}), "w-1").await;
    let second = invoke(&host_b, "wait", json!({"seconds": 5}), "w-2").await;
    assert!(
        first.success && second.success,
        "{} {}",
        first.error_message,
        second.error_message
    );
    assert_eq!(
        (
            first.metadata["consecutive_wait_count"].clone(),
            second.metadata["consecutive_wait_count"].clone()
        ),
        (json!(1), json!(2))
    );
    host_a.shutdown().await;
    host_b.shutdown().await;
    drop((host_a, host_b));
    test.drop_database().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_whose_database_is_down_starts_and_serves_what_does_not_need_it() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!(
        "host={} user=maitool dbname=down",
        dir.path().join("no-server").display()
    );
    let host = maitool_host::Host::start(host_config(dir.path(), "alone", &url))
        .await
        .unwrap();
    let availability = maitool_protocol::ToolAvailabilityContext {
        session_id: "chat-1".into(),
        ..Default::default()
    };
    let tools = host.registry.list_tools(&availability).await;
    assert!(
        tools.iter().any(|tool| tool.name == "wait"),
        "the listing is served"
    );
    let search = invoke(&host, "tool_search", json!({"query": "forward"}), "ts-1").await;
    assert!(!search.success);
    assert!(
        search
            .error_message
            .contains("tool_search failed: tool_search discoveries are unavailable")
            && search.error_message.contains("/down is unreachable"),
        "{}",
        search.error_message
    );
    let wait = invoke(&host, "wait", json!({"seconds": 5}), "w-1").await;
    assert!(!wait.success);
    assert!(
        wait.error_message.contains("/down is unreachable"),
        "{}",
        wait.error_message
    );
    host.shutdown().await;
}
