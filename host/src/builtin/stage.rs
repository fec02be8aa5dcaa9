//! The step of the engine's loop a built-in tool belongs to (MaiBot's timing gate and action
//! loop).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Which step of the engine's loop offers a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// The timing gate, which decides whether and when to act.
    Timing,
    /// The action loop, which acts.
    Action,
    /// Both.
    Both,
}

impl Stage {
    /// The name in metadata (`builtin_stage`).
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Timing => "timing",
            Stage::Action => "action",
            Stage::Both => "both",
        }
    }

    /// Whether a tool of this stage is offered when the engine asks for `asked`. Asking for
    /// `Both` gets every tool.
    pub fn offered_in(self, asked: Stage) -> bool {
        self == Stage::Both || asked == Stage::Both || self == asked
    }
}

impl FromStr for Stage {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim() {
            "timing" => Ok(Stage::Timing),
            "action" => Ok(Stage::Action),
            "both" => Ok(Stage::Both),
            other => Err(format!(
                "unknown stage `{other}`: expected timing, action or both"
            )),
        }
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
