use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::json_kind;

/// The chat platforms a tool is offered on: MaiBot 1.3's `Tool(platforms=...)`.
///
/// Empty means every platform. Otherwise the tool is offered, and may be called, only in a
/// context whose `platform` is one of the names; a context without a platform satisfies no
/// restriction (MaiBot refuses a restricted tool when the call carries no platform, so that
/// leaving the platform out cannot bypass it).
///
/// Names are compared trimmed and lowercased; duplicates are dropped, first one kept. A
/// declaration gives one name (`"telegram"`) or a list (`["telegram", "qq"]`); `null`, an
/// absent key and `[]` mean every platform. Anything else, or an empty name, is refused with
/// [`PlatformsError`]. On the wire and in a spec's `platforms` metadata the set is a list of
/// names.
///
/// ```
/// use maitool_protocol::Platforms;
/// use serde_json::json;
///
/// let telegram = Platforms::from_declaration(Some(&json!(" Telegram "))).unwrap();
/// assert!(telegram.admits("telegram"));
/// assert!(telegram.admits("TELEGRAM"));
/// assert!(!telegram.admits("qq"));
/// assert!(!telegram.admits("")); // no platform in the context: not offered
///
/// let any = Platforms::from_declaration(None).unwrap();
/// assert!(any.is_unrestricted() && any.admits("") && any.admits("qq"));
///
/// let err = Platforms::from_declaration(Some(&json!(["qq", 3]))).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "platforms must be a platform name or a list of platform names (null or [] for every \
///      platform); got a number at position 1"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Platforms(Vec<String>);

/// A `platforms` declaration that is neither a name nor a list of names.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "platforms must be a platform name or a list of platform names (null or [] for every \
     platform); got {found}"
)]
pub struct PlatformsError {
    found: String,
}

impl Platforms {
    /// Every platform.
    pub const fn unrestricted() -> Self {
        Platforms(Vec::new())
    }

    /// A set of names, normalised (trimmed, lowercased, duplicates dropped); an empty name
    /// is refused.
    ///
    /// ```
    /// use maitool_protocol::Platforms;
    ///
    /// let both = Platforms::new(["QQ", "telegram", "qq"]).unwrap();
    /// assert_eq!(both.names(), ["qq", "telegram"]);
    /// assert!(Platforms::new([" "]).is_err());
    /// ```
    pub fn new<I, S>(names: I) -> Result<Self, PlatformsError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut set = Vec::new();
        for (position, name) in names.into_iter().enumerate() {
            let name = name.as_ref().trim().to_lowercase();
            if name.is_empty() {
                return Err(PlatformsError {
                    found: format!("an empty name at position {position}"),
                });
            }
            if !set.contains(&name) {
                set.push(name);
            }
        }
        Ok(Platforms(set))
    }

    /// The set a declaration's `platforms` value gives (`None` when the key is absent).
    pub fn from_declaration(value: Option<&serde_json::Value>) -> Result<Self, PlatformsError> {
        match value {
            None | Some(serde_json::Value::Null) => Ok(Self::unrestricted()),
            Some(serde_json::Value::String(name)) => {
                Self::new([name]).map_err(|_| PlatformsError {
                    found: "an empty name".to_owned(),
                })
            }
            Some(serde_json::Value::Array(items)) => {
                let mut names = Vec::with_capacity(items.len());
                for (position, item) in items.iter().enumerate() {
                    match item.as_str() {
                        Some(name) => names.push(name),
                        None => {
                            return Err(PlatformsError {
                                found: format!("{} at position {position}", json_kind(item)),
                            });
                        }
                    }
                }
                Self::new(names)
            }
            Some(other) => Err(PlatformsError {
                found: json_kind(other).to_owned(),
            }),
        }
    }

    /// True when the tool is offered on every platform.
    pub fn is_unrestricted(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether a context on `platform` may see and call the tool: always when unrestricted,
    /// else when `platform` (trimmed, any case) is one of the names. An empty platform is
    /// none of them.
    pub fn admits(&self, platform: &str) -> bool {
        if self.0.is_empty() {
            return true;
        }
        let platform = platform.trim();
        if platform.is_empty() {
            return false;
        }
        if platform.is_ascii() {
            // The names are lowercase already; no copy of the platform on the usual path.
            return self
                .0
                .iter()
                .any(|name| name.eq_ignore_ascii_case(platform));
        }
        let platform = platform.to_lowercase();
        self.0.contains(&platform)
    }

    /// The names, normalised, in declaration order.
    pub fn names(&self) -> &[String] {
        &self.0
    }
}

impl fmt::Display for Platforms {
    /// `every platform`, or the names joined by `, `.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("every platform")
        } else {
            f.write_str(&self.0.join(", "))
        }
    }
}

impl Serialize for Platforms {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Platforms {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        Platforms::from_declaration(Some(&value)).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests;
