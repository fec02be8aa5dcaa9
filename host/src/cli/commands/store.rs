//! `maitool store copy [--from PATH] [--builtin PATH]`: an instance's SQLite data moved into
//! the PostgreSQL database `[store]` names: the plugins' key-value pairs and the built-in
//! store's rows, each then read back from both sides and compared, so that a copy that lost
//! anything says so. Exit 0 when everything arrived, 1 when the comparison found a difference
//! (a built-in row whose key the database already holds with other content), 2 when `[store]`
//! is not PostgreSQL or neither file exists, 3 when the database cannot be reached.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result, anyhow};

use crate::LoadedConfig;
use crate::builtin::store::IN_MEMORY;
use crate::builtin::{Store, StoreError};
use crate::cli::args::StoreCommand;
use crate::cli::output::outln;
use crate::cli::{EXIT_FAILED, EXIT_SOURCE_FAILED};
use crate::plugin::{KvError, KvStore};
use crate::postgres::Database;
use crate::shared_state::SharedState;

/// How many conflicting rows a failed copy names before it counts the rest.
const NAMED_CONFLICTS: usize = 20;

pub(super) async fn store(config: LoadedConfig, command: &StoreCommand) -> Result<ExitCode> {
    let StoreCommand::Copy { from, builtin } = command;
    let settings = &config.config;
    let shared = SharedState::from_config(&settings.store)?;
    let Some(database) = shared.database() else {
        return Err(anyhow!(
            "[store] backend is \"sqlite\": set backend = \"postgres\" and url or url_env to name the database to copy into"
        ));
    };
    let kv_path = from
        .clone()
        .unwrap_or_else(|| settings.host.data_dir.join("plugin_kv.sqlite3"));
    let builtin_path = builtin
        .clone()
        .unwrap_or_else(|| settings.builtin.database.clone());
    // `:memory:` holds nothing once its host is gone.
    let builtin_exists = builtin_path.as_os_str() != IN_MEMORY && builtin_path.is_file();
    if builtin.is_some() && !builtin_exists {
        return Err(anyhow!(
            "{} does not exist: nothing to copy",
            builtin_path.display()
        ));
    }
    if !kv_path.is_file() && (from.is_some() || !builtin_exists) {
        return Err(anyhow!(
            "{} does not exist: nothing to copy (--from names another file)",
            kv_path.display()
        ));
    }
    if let Err(err) = database.check().await {
        eprintln!("maitool: {}", crate::error_text::chain(&err));
        return Ok(ExitCode::from(EXIT_SOURCE_FAILED));
    }
    if kv_path.is_file() {
        let target = shared.kv_store(&settings.host.data_dir).await?;
        if let Some(code) = copy_kv(&kv_path, &target, database).await? {
            return Ok(code);
        }
    }
    if builtin_exists {
        let target = Store::postgres(database.clone());
        return copy_builtin(&builtin_path, &target, database).await;
    }
    Ok(ExitCode::SUCCESS)
}

/// Copies the key-value pairs; `Some(code)` when the copy failed and the command ends.
async fn copy_kv(
    source_path: &Path,
    target: &KvStore,
    database: &Database,
) -> Result<Option<ExitCode>> {
    let source = KvStore::open(source_path)
        .await
        .with_context(|| format!("opening {}", source_path.display()))?;
    let pairs = source.backend().dump().await?;
    let count = pairs.len();
    target
        .backend()
        .load(pairs.clone())
        .await
        .map_err(|err| anyhow!(kv_chain(&err)))?;
    // Read back: every pair of the file must be in the database with the same value and time.
    let copied = target
        .backend()
        .dump()
        .await
        .map_err(|err| anyhow!(kv_chain(&err)))?;
    let missing: Vec<String> = pairs
        .iter()
        .filter(|pair| !copied.contains(pair))
        .map(|pair| format!("{}/{}", pair.plugin_id, pair.key))
        .collect();
    if !missing.is_empty() {
        eprintln!(
            "maitool: {} of {count} pairs are not in the database as in {}: {}",
            missing.len(),
            source_path.display(),
            missing.join(", ")
        );
        return Ok(Some(ExitCode::from(EXIT_FAILED)));
    }
    outln!(
        "copied {count} plugin key-value pairs from {} to PostgreSQL at {}",
        source_path.display(),
        database.target()
    )?;
    Ok(None)
}

/// Copies every row of the built-in store, then compares the database's rows with the file's.
async fn copy_builtin(source_path: &Path, target: &Store, database: &Database) -> Result<ExitCode> {
    let source = Store::open(source_path)
        .await
        .map_err(|err| anyhow!(store_chain(&err)))
        .with_context(|| format!("opening {}", source_path.display()))?;
    let snapshot = source
        .backend()
        .dump()
        .await
        .map_err(|err| anyhow!(store_chain(&err)))?;
    target
        .backend()
        .load(snapshot.clone())
        .await
        .map_err(|err| anyhow!(store_chain(&err)))?;
    let copied = target
        .backend()
        .dump()
        .await
        .map_err(|err| anyhow!(store_chain(&err)))?;
    let conflicts = snapshot.missing_from(&copied);
    if !conflicts.is_empty() {
        let named: Vec<&str> = conflicts
            .iter()
            .take(NAMED_CONFLICTS)
            .map(String::as_str)
            .collect();
        let more = conflicts.len().saturating_sub(NAMED_CONFLICTS);
        eprintln!(
            "maitool: {} of {} built-in store rows of {} are held differently in the database \
             (the database's rows are kept): {}{}",
            conflicts.len(),
            snapshot.row_count(),
            source_path.display(),
            named.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        );
        return Ok(ExitCode::from(EXIT_FAILED));
    }
    outln!(
        "copied {} built-in store rows ({} messages, {} memories, {} persons, {} emojis) from {} to PostgreSQL at {}",
        snapshot.row_count(),
        snapshot.messages.len(),
        snapshot.memories.len(),
        snapshot.persons.len(),
        snapshot.emojis.len(),
        source_path.display(),
        database.target()
    )?;
    Ok(ExitCode::SUCCESS)
}

fn kv_chain(err: &KvError) -> String {
    crate::error_text::chain(err)
}

fn store_chain(err: &StoreError) -> String {
    crate::error_text::chain(err)
}
