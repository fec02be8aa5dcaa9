use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::visibility::UnknownName;

/// In which chats a tool is offered: MaiBot's `chat_scope`.
///
/// Serialized as its lowercase name (`"all"`, `"group"`, `"private"`).
///
/// ```
/// use maitool_protocol::ChatScope;
///
/// assert_eq!(ChatScope::default(), ChatScope::All);
/// assert!(ChatScope::Group.admits(Some(true)));
/// assert!(!ChatScope::Group.admits(None));
/// assert_eq!("private".parse::<ChatScope>(), Ok(ChatScope::Private));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChatScope {
    /// Every chat.
    #[default]
    All,
    /// Group chats only (`is_group_chat == Some(true)`).
    Group,
    /// Private chats only (`is_group_chat == Some(false)`).
    Private,
}

impl ChatScope {
    /// The wire name: `all`, `group` or `private`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ChatScope::All => "all",
            ChatScope::Group => "group",
            ChatScope::Private => "private",
        }
    }

    /// Whether a chat with this `is_group_chat` value is in scope; a chat of unknown type is
    /// in scope only for `All`.
    pub fn admits(self, is_group_chat: Option<bool>) -> bool {
        match self {
            ChatScope::All => true,
            ChatScope::Group => is_group_chat == Some(true),
            ChatScope::Private => is_group_chat == Some(false),
        }
    }
}

impl fmt::Display for ChatScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl FromStr for ChatScope {
    type Err = UnknownName;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        match value {
            "all" => Ok(ChatScope::All),
            "group" => Ok(ChatScope::Group),
            "private" => Ok(ChatScope::Private),
            other => Err(UnknownName::new("chat scope", other, "all, group, private")),
        }
    }
}
