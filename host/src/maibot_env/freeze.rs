//! What an environment holds: every installed distribution and its version, as the
//! environment's own interpreter sees them (`importlib.metadata`, what MaiBot reads too).

use std::collections::BTreeMap;
use std::path::Path;

use tokio::process::Command;

use super::observer::Silent;
use super::process::{ToolError, run};
use super::requirement::canonical_name;

/// Prints `name<TAB>version` for each installed distribution.
const LIST: &str = "import importlib.metadata as m\nfor d in m.distributions():\n    n = d.metadata['Name']\n    if n: print(n + '\\t' + d.version)";

/// The distributions installed for `python`: normalised name -> version.
pub async fn installed(python: &Path) -> Result<BTreeMap<String, String>, ToolError> {
    let mut command = Command::new(python);
    command.args(["-c", LIST]);
    let stdout = run(command, &Silent).await?;
    Ok(parse(&stdout))
}

fn parse(listing: &str) -> BTreeMap<String, String> {
    listing
        .lines()
        .filter_map(|line| line.split_once('\t'))
        .map(|(name, version)| (canonical_name(name), version.trim().to_owned()))
        .collect()
}

#[cfg(test)]
mod tests;
