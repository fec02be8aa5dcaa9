//! `maitool store copy [--from PATH]`: an instance's plugin key-value pairs moved from its
//! SQLite file into the PostgreSQL database `[store]` names, then read back from both sides
//! and compared, so that a copy that lost anything says so. Exit 0 when every pair arrived,
//! 1 when the comparison found a difference, 2 when `[store]` is not PostgreSQL or the file
//! is missing, 3 when the database cannot be reached.

use std::process::ExitCode;

use anyhow::{Context, Result, anyhow};

use crate::LoadedConfig;
use crate::cli::args::StoreCommand;
use crate::cli::output::outln;
use crate::cli::{EXIT_FAILED, EXIT_SOURCE_FAILED};
use crate::plugin::{KvError, KvStore};
use crate::shared_state::SharedState;

pub(super) async fn store(config: LoadedConfig, command: &StoreCommand) -> Result<ExitCode> {
    let StoreCommand::Copy { from } = command;
    let settings = &config.config;
    let shared = SharedState::from_config(&settings.store)?;
    let Some(database) = shared.database() else {
        return Err(anyhow!(
            "[store] backend is \"sqlite\": set backend = \"postgres\" and url or url_env to name the database to copy into"
        ));
    };
    let source_path = from
        .clone()
        .unwrap_or_else(|| settings.host.data_dir.join("plugin_kv.sqlite3"));
    if !source_path.is_file() {
        return Err(anyhow!(
            "{} does not exist: nothing to copy (--from names another file)",
            source_path.display()
        ));
    }
    if let Err(err) = database.check().await {
        eprintln!("maitool: {}", crate::error_text::chain(&err));
        return Ok(ExitCode::from(EXIT_SOURCE_FAILED));
    }
    let source = KvStore::open(&source_path)
        .await
        .with_context(|| format!("opening {}", source_path.display()))?;
    let target = shared.kv_store(&settings.host.data_dir).await?;
    let pairs = source.backend().dump().await?;
    let count = pairs.len();
    target
        .backend()
        .load(pairs.clone())
        .await
        .map_err(|err| anyhow!(chain(&err)))?;
    // Read back: every pair of the file must be in the database with the same value and time.
    let copied = target
        .backend()
        .dump()
        .await
        .map_err(|err| anyhow!(chain(&err)))?;
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
        return Ok(ExitCode::from(EXIT_FAILED));
    }
    outln!(
        "copied {count} plugin key-value pairs from {} to PostgreSQL at {}",
        source_path.display(),
        database.target()
    )?;
    Ok(ExitCode::SUCCESS)
}

fn chain(err: &KvError) -> String {
    crate::error_text::chain(err)
}
