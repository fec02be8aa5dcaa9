//! The stamp: what maitool installed into an environment (`maitool-env.json` in the venv), so
//! that a start whose wanted set matches it runs nothing at all.
//!
//! It records the pinned sets a managed environment was built with and, per plugin, the
//! requirements it declared and what came of them: the packages its install added (which
//! that plugin, and no other, may change later) or why it was refused. A refusal recorded
//! here is one maitool decided from the declarations (a conflict), which the same inputs
//! decide the same way; an install that failed (the network, the resolver) is not recorded,
//! so the next start tries again.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The stamp's file name inside the venv.
pub const STAMP_FILE: &str = "maitool-env.json";

/// The layout version; a stamp of another version is treated as absent.
const FORMAT: u32 = 1;

/// Why a stamp could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum StampError {
    /// The file could not be read or written.
    #[error("{}", path.display())]
    Io {
        /// The stamp's path.
        path: PathBuf,
        /// The OS's reason.
        #[source]
        source: std::io::Error,
    },
}

/// What an environment holds, as far as maitool put it there.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    /// The layout version.
    pub format: u32,
    /// A managed environment's base: the interpreter and pinned sets it was built with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<BaseStamp>,
    /// Plugin id -> what its declared dependencies came to.
    #[serde(default)]
    pub plugins: BTreeMap<String, PluginStamp>,
}

/// How a managed environment was built.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BaseStamp {
    /// The interpreter the venv was made from.
    pub python: String,
    /// Its version (`3.12.1`).
    pub python_version: String,
    /// What installed it (`uv 0.13.9`, `pip`).
    pub installer: String,
    /// The runner set's lines.
    pub runner: Vec<String>,
    /// The baseline's lines.
    pub baseline: Vec<String>,
}

/// One plugin's dependencies, as last handled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PluginStamp {
    /// The requirements it declared then.
    pub requires: Vec<String>,
    /// What came of them.
    pub outcome: PluginOutcome,
}

/// What came of a plugin's dependencies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PluginOutcome {
    /// Installed (or already there): the packages its install added, name -> version.
    Installed {
        /// What the install added to the environment.
        added: BTreeMap<String, String>,
    },
    /// Refused, for a reason decided from the declarations.
    Refused {
        /// The reason, as the plugin's status shows it.
        reason: String,
    },
}

impl Stamp {
    /// An empty stamp.
    pub fn new() -> Stamp {
        Stamp {
            format: FORMAT,
            ..Stamp::default()
        }
    }

    /// Reads the stamp of the venv at `venv`; a missing, unreadable or foreign file is an
    /// empty stamp (which makes the environment stale, never wrongly fresh).
    pub async fn read(venv: &Path) -> Stamp {
        let path = venv.join(STAMP_FILE);
        match tokio::fs::read(&path).await {
            Ok(bytes) => match serde_json::from_slice::<Stamp>(&bytes) {
                Ok(stamp) if stamp.format == FORMAT => stamp,
                Ok(_) => Stamp::new(),
                Err(err) => {
                    tracing::warn!(
                        "{}: not a stamp maitool can read ({err}); treating the environment as unprepared",
                        path.display()
                    );
                    Stamp::new()
                }
            },
            Err(_) => Stamp::new(),
        }
    }

    /// Writes the stamp into the venv at `venv`, whole or not at all (a temporary file
    /// renamed over it).
    pub async fn write(&self, venv: &Path) -> Result<(), StampError> {
        let path = venv.join(STAMP_FILE);
        let partial = venv.join(format!(".{STAMP_FILE}.partial"));
        let text = serde_json::to_vec_pretty(self).expect("a stamp serialises");
        let io = |source| StampError::Io {
            path: path.clone(),
            source,
        };
        tokio::fs::write(&partial, text).await.map_err(io)?;
        tokio::fs::rename(&partial, &path).await.map_err(io)
    }

    /// The plugin that added `package` (normalised name), if one did.
    pub fn owner_of(&self, package: &str) -> Option<(&str, &PluginStamp)> {
        self.plugins
            .iter()
            .find_map(|(id, plugin)| match &plugin.outcome {
                PluginOutcome::Installed { added } if added.contains_key(package) => {
                    Some((id.as_str(), plugin))
                }
                _ => None,
            })
    }
}

#[cfg(test)]
mod tests;
