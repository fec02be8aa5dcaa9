//! The Python packages a MaiBot plugin's `_manifest.json` declares under `dependencies`, read
//! as the market's manifests actually write them.
//!
//! The SDK's form is a list of `{"type": "python_package", "name", "version_spec"}` (next to
//! `{"type": "plugin", "id", ...}` entries, which name other plugins and are not packages).
//! Manifests in the wild also write `{"name", "version"}` without a type, requirement strings
//! (`"httpx>=0.27"`), and `{"required": [...], "optional": [...]}`; each is read for what it
//! clearly means. An entry that names a package but cannot be read (a malformed specifier) is
//! kept as a problem: the plugin is not loaded, with the problem as the reason, as MaiBot does.

use serde_json::Value;

use super::requirement::Requirement;

/// What one plugin declares.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeclaredDependencies {
    /// The packages, in the manifest's order.
    pub requirements: Vec<Requirement>,
    /// Entries that name a package but could not be read, each as one sentence.
    pub problems: Vec<String>,
}

impl DeclaredDependencies {
    /// Reads the `dependencies` of a parsed `_manifest.json`.
    pub fn from_manifest(manifest: &Value) -> DeclaredDependencies {
        let mut declared = DeclaredDependencies::default();
        match manifest.get("dependencies") {
            None | Some(Value::Null) => {}
            Some(Value::Array(entries)) => {
                for entry in entries {
                    declared.read_entry(entry);
                }
            }
            Some(Value::Object(groups)) => {
                // `{"required": [...], "optional": [...]}`: what is optional is not installed.
                match groups.get("required") {
                    Some(Value::Array(entries)) => {
                        for entry in entries {
                            declared.read_entry(entry);
                        }
                    }
                    Some(_) => declared
                        .problems
                        .push("`dependencies.required` is not a list".to_owned()),
                    None => {}
                }
            }
            Some(_) => declared
                .problems
                .push("`dependencies` is neither a list nor a table".to_owned()),
        }
        declared.requirements.dedup();
        declared
    }

    /// Whether the plugin needs no package.
    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty() && self.problems.is_empty()
    }

    /// The requirements as text, in order: what the stamp records.
    pub fn texts(&self) -> Vec<String> {
        self.requirements.iter().map(ToString::to_string).collect()
    }

    fn read_entry(&mut self, entry: &Value) {
        let outcome = match entry {
            Value::String(line) => Requirement::parse(line),
            Value::Object(fields) => {
                let kind = fields.get("type").and_then(Value::as_str).unwrap_or("");
                let name = fields.get("name").and_then(Value::as_str);
                // A plugin dependency (`type = plugin`, or an `id` and no `name`) is no package.
                if kind == "plugin" || (kind.is_empty() && name.is_none()) {
                    return;
                }
                let Some(name) = name else {
                    self.problems
                        .push(format!("a `{kind}` dependency without a `name`: {entry}"));
                    return;
                };
                let spec = ["version_spec", "version"]
                    .iter()
                    .find_map(|key| fields.get(*key).and_then(Value::as_str))
                    .unwrap_or("");
                Requirement::new(name, spec)
            }
            other => {
                self.problems.push(format!(
                    "a dependency that is neither a table nor a string: {other}"
                ));
                return;
            }
        };
        match outcome {
            Ok(requirement) => {
                let clash = self
                    .requirements
                    .iter()
                    .find(|earlier| earlier.conflicts_with(&requirement));
                if let Some(earlier) = clash {
                    self.problems.push(format!(
                        "it declares both {earlier} and {requirement}, which no version satisfies"
                    ));
                } else if requirement.is_unsatisfiable() {
                    self.problems
                        .push(format!("no version satisfies its dependency {requirement}"));
                } else {
                    self.requirements.push(requirement);
                }
            }
            Err(err) => self
                .problems
                .push(format!("invalid dependency declaration: {err}")),
        }
    }
}

#[cfg(test)]
mod tests;
