//! The pinned package sets every managed environment starts with, checked in beside the crate
//! (`host/maibot-env/`) and compiled in: MaiBot's runner and SDK, then the baseline of
//! MaiBot's own dependencies that plugins import without declaring them.

use super::requirement::canonical_name;

/// `host/maibot-env/runner-requirements.txt`.
const RUNNER: &str = include_str!("../../maibot-env/runner-requirements.txt");
/// `host/maibot-env/baseline-requirements.txt`.
const BASELINE: &str = include_str!("../../maibot-env/baseline-requirements.txt");

/// The installer maitool fetches from PyPI, pinned; pip is used when it cannot be had.
pub const UV_VERSION: &str = "0.13.9";

/// One pinned package: `name==version`, maybe with an environment marker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pin {
    /// The normalised package name.
    pub name: String,
    /// The pinned version.
    pub version: String,
    /// The line an installer takes (`httpcore2==2.17.0 ; sys_platform != 'emscripten'`).
    pub line: String,
}

/// Which pinned set a package belongs to, for messages that say who needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PinnedSet {
    /// MaiBot's runner and SDK.
    Runner,
    /// The baseline.
    Baseline,
}

impl PinnedSet {
    /// Its pins.
    pub fn pins(self) -> Vec<Pin> {
        parse(match self {
            PinnedSet::Runner => RUNNER,
            PinnedSet::Baseline => BASELINE,
        })
    }

    /// What a message calls it.
    pub fn describe(self) -> &'static str {
        match self {
            PinnedSet::Runner => "MaiBot's runner",
            PinnedSet::Baseline => "the baseline every MaiBot plugin finds",
        }
    }
}

/// The pins of a requirements text: one `name==version` a line; comments and blank lines are
/// skipped.
pub(crate) fn parse(text: &str) -> Vec<Pin> {
    text.lines()
        .map(|line| line.split('#').next().unwrap_or("").trim())
        .filter(|line| !line.is_empty())
        .filter_map(|line| {
            let requirement = line.split(';').next().unwrap_or(line).trim();
            let (name, version) = requirement.split_once("==")?;
            Some(Pin {
                name: canonical_name(name),
                version: version.trim().to_owned(),
                line: line.to_owned(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests;
