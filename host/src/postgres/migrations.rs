//! The schema of the shared store, as an ordered list of migrations. A released migration is
//! never edited: a change of schema is a new entry at the end.
//!
//! Text keys compare with the `C` collation, so that keys sort by their bytes as in SQLite,
//! whatever locale the database was created with.

/// One step of the schema.
#[derive(Debug)]
pub(super) struct Migration {
    /// Its version: 1, 2, ... in order, never reused.
    pub(super) version: i32,
    /// What it does, recorded beside the version.
    pub(super) name: &'static str,
    /// Its statements, run in one transaction.
    pub(super) sql: &'static str,
}

/// Every migration, oldest first.
pub(super) const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "plugin key-value store and chat-session state",
        sql: r#"
        CREATE TABLE plugin_kv (
            plugin_id TEXT COLLATE "C" NOT NULL,
            key TEXT COLLATE "C" NOT NULL,
            value TEXT NOT NULL,
            updated_ms BIGINT NOT NULL,
            PRIMARY KEY (plugin_id, key)
        );
        CREATE TABLE engine_session_state (
            session_id TEXT COLLATE "C" PRIMARY KEY,
            state JSONB NOT NULL,
            updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
        );
        CREATE TABLE tool_discovery (
            session_id TEXT COLLATE "C" PRIMARY KEY,
            state JSONB NOT NULL,
            updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
        );
        -- A row disables a component: globally when session_id is '', else for that session.
        CREATE TABLE component_toggle (
            full_name TEXT COLLATE "C" NOT NULL,
            session_id TEXT COLLATE "C" NOT NULL,
            PRIMARY KEY (full_name, session_id)
        );
    "#,
    },
    Migration {
        version: 2,
        name: "cluster heartbeat table",
        // One row per running `maitool serve`; times are the database's own clock, so that
        // hosts with skewed clocks still agree on who is stale.
        sql: r#"
        CREATE TABLE hosts (
            host_id TEXT COLLATE "C" PRIMARY KEY,
            hostname TEXT NOT NULL,
            pid INTEGER NOT NULL,
            version TEXT NOT NULL,
            mcp_address TEXT,
            started_at TIMESTAMPTZ NOT NULL DEFAULT now(),
            last_seen TIMESTAMPTZ NOT NULL DEFAULT now(),
            ready BOOLEAN NOT NULL,
            waiting_for TEXT NOT NULL DEFAULT '',
            tools INTEGER NOT NULL,
            plugins_loaded INTEGER NOT NULL,
            plugins_total INTEGER NOT NULL
        );
        CREATE INDEX hosts_last_seen ON hosts (last_seen);
    "#,
    },
];

/// The schema version this build brings a database to.
pub const SCHEMA_VERSION: i32 = MIGRATIONS[MIGRATIONS.len() - 1].version;
