//! A Python package requirement as MaiBot plugins declare them: a package name (with extras)
//! and PEP 440 version specifiers, compared with an installed version and with each other.

use std::fmt;
use std::str::FromStr;

use pep440_rs::{Version, VersionSpecifiers};
use version_ranges::Ranges;

/// A package name as written, and its normalised form (PEP 503: lower case, runs of `-`, `_`
/// and `.` made one `-`), under which two spellings of one package compare equal.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PackageName {
    canonical: String,
    written: String,
}

impl PackageName {
    /// Checks `name` (letters, digits, `.`, `_` and `-`, starting and ending with a letter or
    /// digit, as PEP 508 allows).
    pub fn parse(name: &str) -> Result<PackageName, RequirementError> {
        let name = name.trim();
        let edges_ok = name
            .chars()
            .next()
            .zip(name.chars().last())
            .is_some_and(|(first, last)| {
                first.is_ascii_alphanumeric() && last.is_ascii_alphanumeric()
            });
        if !edges_ok
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        {
            return Err(RequirementError::Name(name.to_owned()));
        }
        Ok(PackageName {
            canonical: canonical_name(name),
            written: name.to_owned(),
        })
    }

    /// The normalised name (`pillow` for `Pillow`, `json-repair` for `json_repair`).
    pub fn canonical(&self) -> &str {
        &self.canonical
    }

    /// The name as it was written.
    pub fn as_written(&self) -> &str {
        &self.written
    }
}

impl fmt::Display for PackageName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.written)
    }
}

/// PEP 503's normalised form of a package name.
pub fn canonical_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut separator = false;
    for c in name.trim().chars() {
        if matches!(c, '-' | '_' | '.') {
            separator = true;
            continue;
        }
        if separator && !out.is_empty() {
            out.push('-');
        }
        separator = false;
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// Why a declared requirement could not be read.
#[derive(Debug, thiserror::Error)]
pub enum RequirementError {
    /// Not a package name.
    #[error("`{0}` is not a Python package name")]
    Name(String),
    /// Extras that do not close, or are not names.
    #[error("`{0}` has malformed extras")]
    Extras(String),
    /// Not PEP 440 version specifiers.
    #[error("`{spec}` is not a version specifier (PEP 440) of {package}")]
    Specifier {
        /// The package.
        package: String,
        /// The text.
        spec: String,
        /// What the parser found.
        #[source]
        source: Box<pep440_rs::VersionSpecifiersParseError>,
    },
}

/// One requirement: `name[extras]specifiers`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    name: PackageName,
    extras: Vec<String>,
    specifiers: VersionSpecifiers,
}

impl Requirement {
    /// A requirement from a name (which may carry extras, `httpx[socks]`) and a specifier
    /// text (`>=0.27,<1`; empty for any version). A bare version (`3.8.0`), which some
    /// manifests write, means that version or later.
    pub fn new(name: &str, spec: &str) -> Result<Requirement, RequirementError> {
        let (name, extras) = split_extras(name.trim())?;
        let name = PackageName::parse(name)?;
        let spec = spec.trim();
        let specifiers = if spec.is_empty() {
            VersionSpecifiers::empty()
        } else if spec.starts_with(|c: char| c.is_ascii_digit()) && Version::from_str(spec).is_ok()
        {
            parse_specifiers(&name, &format!(">={spec}"))?
        } else {
            parse_specifiers(&name, spec)?
        };
        Ok(Requirement {
            name,
            extras,
            specifiers,
        })
    }

    /// A requirement line without markers: `numpy>=1.20`, `httpx[socks]`, `pillow == 12.*`.
    pub fn parse(line: &str) -> Result<Requirement, RequirementError> {
        let line = line.trim();
        let split = line
            .find(['<', '>', '=', '!', '~', ' ', '('])
            .unwrap_or(line.len());
        let (name, spec) = line.split_at(split);
        let spec = spec.trim().trim_start_matches('(').trim_end_matches(')');
        Requirement::new(name, spec)
    }

    /// The package.
    pub fn name(&self) -> &PackageName {
        &self.name
    }

    /// Extras asked for (`socks` of `httpx[socks]`).
    pub fn extras(&self) -> &[String] {
        &self.extras
    }

    /// Whether `version` (as installed) satisfies the specifiers. Pre-releases count, as in
    /// MaiBot: what is installed is what the plugin will import. A version that does not parse
    /// satisfies nothing but an empty specifier.
    pub fn admits(&self, version: &str) -> bool {
        if self.specifiers.is_empty() {
            return true;
        }
        Version::from_str(version).is_ok_and(|version| self.specifiers.contains(&version))
    }

    /// Whether no version can satisfy both `self` and `other`, for the same package (two
    /// different packages never conflict).
    pub fn conflicts_with(&self, other: &Requirement) -> bool {
        self.name.canonical == other.name.canonical
            && Ranges::<Version>::from(self.specifiers.clone())
                .is_disjoint(&Ranges::<Version>::from(other.specifiers.clone()))
    }

    /// Whether the specifiers admit no version at all (`>=2,<1`).
    pub fn is_unsatisfiable(&self) -> bool {
        Ranges::<Version>::from(self.specifiers.clone()).is_empty()
    }
}

impl fmt::Display for Requirement {
    /// The requirement as an installer takes it: `httpx[socks]>=0.27`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.name)?;
        if !self.extras.is_empty() {
            write!(f, "[{}]", self.extras.join(","))?;
        }
        write!(f, "{}", self.specifiers)
    }
}

fn parse_specifiers(name: &PackageName, spec: &str) -> Result<VersionSpecifiers, RequirementError> {
    VersionSpecifiers::from_str(spec).map_err(|source| RequirementError::Specifier {
        package: name.to_string(),
        spec: spec.to_owned(),
        source: Box::new(source),
    })
}

/// `httpx[socks, http2]` -> (`httpx`, [socks, http2]).
fn split_extras(name: &str) -> Result<(&str, Vec<String>), RequirementError> {
    let Some(open) = name.find('[') else {
        return Ok((name, Vec::new()));
    };
    let inner = name[open + 1..]
        .strip_suffix(']')
        .ok_or_else(|| RequirementError::Extras(name.to_owned()))?;
    let extras: Vec<String> = inner
        .split(',')
        .map(str::trim)
        .filter(|extra| !extra.is_empty())
        .map(|extra| {
            PackageName::parse(extra)
                .map(|e| e.canonical)
                .map_err(|_| RequirementError::Extras(name.to_owned()))
        })
        .collect::<Result<_, _>>()?;
    Ok((name[..open].trim_end(), extras))
}

#[cfg(test)]
mod tests;
