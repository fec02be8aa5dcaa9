use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::{JsonObject, ToolSpec};

/// How a tool reaches the model: MaiBot's `visibility` metadata.
///
/// MaiBot's rule, kept here: a plugin tool is **deferred unless it is a core tool**. A
/// declaration's `visibility` metadata wins when it is one of `visible`, `deferred` or
/// `hidden`; otherwise `core_tool: true` means [`Visible`](Visibility::Visible); otherwise the
/// tool is [`Deferred`](Visibility::Deferred), the default.
///
/// Serialized as its lowercase name (`"visible"`, `"deferred"`, `"hidden"`).
///
/// ```
/// use maitool_protocol::{JsonObject, Visibility};
///
/// assert_eq!(Visibility::default(), Visibility::Deferred);
/// assert_eq!("hidden".parse::<Visibility>(), Ok(Visibility::Hidden));
///
/// let mut metadata = JsonObject::new();
/// assert_eq!(Visibility::of_declaration(&metadata), Visibility::Deferred);
/// metadata.insert("core_tool".into(), true.into());
/// assert_eq!(Visibility::of_declaration(&metadata), Visibility::Visible);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    /// In the model's tool list on every request: MaiBot's core tools.
    Visible,
    /// Listed by name and description in a `<system-reminder>` until the model finds it with
    /// `tool_search`; then in the tool list for as long as that search stays in the context.
    #[default]
    Deferred,
    /// Offered to no one: never listed, never in a model's definitions, and a call to it
    /// fails with `tool NAME is hidden` (MaiBot disables hidden tools, so its registry
    /// refuses them too). Keeps a tool declared but out of use.
    Hidden,
}

impl Visibility {
    /// The metadata name: `visible`, `deferred` or `hidden`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Visibility::Visible => "visible",
            Visibility::Deferred => "deferred",
            Visibility::Hidden => "hidden",
        }
    }

    /// A plugin component's visibility from its declared metadata, by MaiBot's rule:
    /// `visibility` when it names one, else `core_tool: true` means visible, else deferred.
    pub fn of_declaration(metadata: &JsonObject) -> Visibility {
        let named = metadata
            .get("visibility")
            .and_then(|value| value.as_str())
            .and_then(|value| value.trim().parse().ok());
        match named {
            Some(visibility) => visibility,
            None if metadata.get("core_tool").and_then(|value| value.as_bool()) == Some(true) => {
                Visibility::Visible
            }
            None => Visibility::Deferred,
        }
    }

    /// How a listed spec reaches the model, from its `visibility` metadata: `visible` and
    /// `hidden` as named, anything else (absent, unknown) deferred. MaiBot exposes a
    /// non-built-in tool directly only when its metadata says `visible`.
    pub fn of_spec(spec: &ToolSpec) -> Visibility {
        spec.visibility()
            .and_then(|value| value.parse().ok())
            .unwrap_or_default()
    }
}

impl fmt::Display for Visibility {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// A name that is not `visible`, `deferred` or `hidden` (or not `all`, `group` or
/// `private` for a [`ChatScope`](super::ChatScope)).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {kind} {value:?}: expected one of {expected}")]
pub struct UnknownName {
    kind: &'static str,
    value: String,
    expected: &'static str,
}

impl UnknownName {
    pub(super) fn new(kind: &'static str, value: &str, expected: &'static str) -> Self {
        Self {
            kind,
            value: value.to_owned(),
            expected,
        }
    }
}

impl FromStr for Visibility {
    type Err = UnknownName;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        match value {
            "visible" => Ok(Visibility::Visible),
            "deferred" => Ok(Visibility::Deferred),
            "hidden" => Ok(Visibility::Hidden),
            other => Err(UnknownName::new(
                "visibility",
                other,
                "visible, deferred, hidden",
            )),
        }
    }
}
