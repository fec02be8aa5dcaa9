//! The known capability names nearest to one that is not known, for the configuration error
//! that refuses it: `kv.gte` → `kv.get`, `send.video` → the `send.*` names, `send_message`
//! → the `send.*` names (`send.text` first), `knowlege.search` → `knowledge.search`.
//!
//! A name is read as words split at any separator (`.`, `_`, `:`, `-`), since manifests and
//! older MaiBot versions spell names more ways than the dotted one. When its first word is a
//! family, the family's capabilities are the candidates; otherwise every name and `family.*`.

use std::fmt;

use maitool_protocol::capability::{Capability, CapabilityFamily};

/// How close (normalised Damerau-Levenshtein, 1.0 = equal) an action must be to a family
/// member's to be offered alone: `gte` is 0.67 from `get`, `message` 0.43 from `image`.
const ACTION_SIMILARITY: f64 = 0.65;

/// How close a whole name must be to a known one when no family is recognised.
const NAME_SIMILARITY: f64 = 0.6;

/// At most this many close names are offered.
const MAX_CLOSE: usize = 3;

/// The known names nearest to an unknown one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Suggestion {
    /// Names spelled close to it, closest first.
    Close(Vec<String>),
    /// Its first word is this family, and none of the family's names is close: every one of
    /// them, in declaration order.
    Family {
        /// The family.
        family: CapabilityFamily,
        /// Its capabilities.
        members: Vec<&'static str>,
    },
    /// Nothing is near.
    Nothing,
}

impl fmt::Display for Suggestion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Suggestion::Close(names) => write!(f, "did you mean {}?", or_list(names)),
            Suggestion::Family { family, members } => write!(
                f,
                "the {family} family has {}: grant one of them, or \"{family}.*\" for all",
                members.join(", ")
            ),
            Suggestion::Nothing => {
                let families: Vec<&str> = CapabilityFamily::ALL.iter().map(|f| f.name()).collect();
                write!(
                    f,
                    "no known name is near; the families are {} (docs/MAIBOT_CAPABILITIES.md lists every capability)",
                    families.join(", ")
                )
            }
        }
    }
}

fn or_list(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// The known names nearest to `name`, which is not itself known.
pub fn suggest(name: &str) -> Suggestion {
    let lowered = name.trim().to_ascii_lowercase();
    let words: Vec<&str> = lowered
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| !word.is_empty())
        .collect();
    let Some((first, rest)) = words.split_first() else {
        return Suggestion::Nothing;
    };
    if let Ok(family) = first.parse::<CapabilityFamily>() {
        let action = rest.join("_");
        let close = closest(
            Capability::ALL
                .iter()
                .filter(|capability| capability.family() == family)
                .map(|capability| {
                    let name = capability.name();
                    (name, &name[family.name().len() + 1..])
                }),
            &action,
            ACTION_SIMILARITY,
        );
        if !close.is_empty() {
            return Suggestion::Close(close);
        }
        return Suggestion::Family {
            family,
            members: super::members(family),
        };
    }
    let dotted = words.join(".");
    let patterns: Vec<String> = CapabilityFamily::ALL
        .iter()
        .map(|family| format!("{family}.*"))
        .collect();
    // A pattern is compared by its family's name: `emoj.*` is read as the words `emoj`.
    let candidates = Capability::ALL
        .iter()
        .map(|capability| (capability.name(), capability.name()))
        .chain(
            patterns
                .iter()
                .zip(CapabilityFamily::ALL)
                .map(|(pattern, family)| (pattern.as_str(), family.name())),
        );
    let close = closest(candidates, &dotted, NAME_SIMILARITY);
    if close.is_empty() {
        Suggestion::Nothing
    } else {
        Suggestion::Close(close)
    }
}

/// The names whose key is at least `threshold` similar to `target`, closest first (ties in
/// the candidates' order), at most [`MAX_CLOSE`].
fn closest<'a>(
    candidates: impl Iterator<Item = (&'a str, &'a str)>,
    target: &str,
    threshold: f64,
) -> Vec<String> {
    let mut scored: Vec<(f64, &str)> = candidates
        .map(|(name, key)| (strsim::normalized_damerau_levenshtein(target, key), name))
        .filter(|(score, _)| *score >= threshold)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored
        .into_iter()
        .take(MAX_CLOSE)
        .map(|(_, name)| name.to_owned())
        .collect()
}
