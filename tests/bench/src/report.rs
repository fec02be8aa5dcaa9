//! Collects every figure with its unit and target, prints the table and writes the JSON.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use serde_json::{Value, json};

/// A target a figure is checked against.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Target {
    /// The figure must be at most this.
    AtMost(f64),
    /// The figure must be at least this.
    AtLeast(f64),
    /// The figure must be below this.
    Below(f64),
}

impl Target {
    fn holds(self, value: f64) -> bool {
        match self {
            Target::AtMost(limit) => value <= limit,
            Target::AtLeast(limit) => value >= limit,
            Target::Below(limit) => value < limit,
        }
    }

    fn describe(self) -> String {
        match self {
            Target::AtMost(limit) => format!("<= {}", number(limit)),
            Target::AtLeast(limit) => format!(">= {}", number(limit)),
            Target::Below(limit) => format!("< {}", number(limit)),
        }
    }
}

/// One row of the table.
#[derive(Debug, Clone)]
struct Row {
    section: &'static str,
    key: String,
    label: String,
    value: Option<f64>,
    unit: &'static str,
    target: Option<Target>,
}

/// Every figure of a run.
#[derive(Debug, Default)]
pub struct Report {
    rows: Vec<Row>,
    notes: BTreeMap<String, Value>,
    errors: Vec<String>,
    skipped: Vec<String>,
}

impl Report {
    /// Records a figure: `key` in the JSON, `label` and `unit` in the table.
    pub fn add(
        &mut self,
        section: &'static str,
        key: &str,
        label: &str,
        value: f64,
        unit: &'static str,
    ) {
        self.push(section, key, label, Some(value), unit, None);
    }

    /// Records a figure checked against `target`.
    pub fn check(
        &mut self,
        section: &'static str,
        key: &str,
        label: &str,
        value: f64,
        unit: &'static str,
        target: Target,
    ) {
        self.push(section, key, label, Some(value), unit, Some(target));
    }

    fn push(
        &mut self,
        section: &'static str,
        key: &str,
        label: &str,
        value: Option<f64>,
        unit: &'static str,
        target: Option<Target>,
    ) {
        self.rows.push(Row {
            section,
            key: key.to_owned(),
            label: label.to_owned(),
            value,
            unit,
            target,
        });
    }

    /// Records non-figure context (sizes, settings) under `meta` in the JSON.
    pub fn note(&mut self, key: &str, value: impl Into<Value>) {
        self.notes.insert(key.to_owned(), value.into());
    }

    /// Records a section that failed; its figures stay absent (null in the JSON).
    pub fn error(&mut self, section: &str, error: &anyhow::Error) {
        self.errors.push(format!("{section}: {error:#}"));
    }

    /// Records a section that was skipped, and why (printed under the table); its figures
    /// stay absent (null in the JSON).
    pub fn skip(&mut self, section: &str, reason: &str) {
        self.skipped.push(format!("{section}: {reason}"));
    }

    /// Whether any section failed.
    pub fn has_errors(&self) -> bool {
        !self.errors.is_empty()
    }

    /// Figures that missed their target.
    pub fn misses(&self) -> Vec<&str> {
        self.rows
            .iter()
            .filter(|row| matches!((row.value, row.target), (Some(value), Some(target)) if !target.holds(value)))
            .map(|row| row.key.as_str())
            .collect()
    }

    /// The table, one line per figure, grouped by section.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let width = self
            .rows
            .iter()
            .map(|row| row.label.chars().count())
            .max()
            .unwrap_or(10)
            .max(10);
        let mut rows: Vec<&Row> = self.rows.iter().collect();
        // Sections are numbered; a stable sort keeps each section's rows in recording order.
        rows.sort_by_key(|row| row.section);
        let mut section = "";
        for row in rows {
            if row.section != section {
                section = row.section;
                let _ = writeln!(out, "\n== {section} ==");
            }
            let value = row
                .value
                .map(|v| format!("{} {}", number(v), row.unit))
                .unwrap_or_else(|| "-".into());
            let verdict = match (row.value, row.target) {
                (Some(value), Some(target)) => {
                    format!(
                        "target {:<10} {}",
                        target.describe(),
                        if target.holds(value) { "PASS" } else { "MISS" }
                    )
                }
                _ => String::new(),
            };
            let _ = writeln!(out, "  {:<width$}  {:>16}  {}", row.label, value, verdict);
        }
        if !self.skipped.is_empty() {
            let _ = writeln!(out, "\n== skipped ==");
            for skipped in &self.skipped {
                let _ = writeln!(out, "  {skipped}");
            }
        }
        if !self.errors.is_empty() {
            let _ = writeln!(out, "\n== errors ==");
            for error in &self.errors {
                let _ = writeln!(out, "  {error}");
            }
        }
        out
    }

    /// The JSON document: every figure as a top-level key, plus `targets`, `meta` and
    /// `errors`.
    pub fn json(&self) -> Value {
        let mut root = serde_json::Map::new();
        let mut targets = serde_json::Map::new();
        for row in &self.rows {
            root.insert(
                row.key.clone(),
                row.value.map(Value::from).unwrap_or(Value::Null),
            );
            if let Some(target) = row.target {
                let pass = row.value.map(|value| target.holds(value));
                targets.insert(
                    row.key.clone(),
                    json!({"target": target.describe(), "pass": pass}),
                );
            }
        }
        root.insert("targets".into(), Value::Object(targets));
        root.insert(
            "meta".into(),
            serde_json::to_value(&self.notes).unwrap_or(Value::Null),
        );
        root.insert("errors".into(), json!(self.errors));
        Value::Object(root)
    }

    /// Writes [`json`](Self::json) to `path`, pretty-printed.
    pub fn write(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(&self.json())?;
        std::fs::write(path, text + "\n")
            .with_context(|| format!("cannot write {}", path.display()))
    }

    /// Marks the keys a section would have produced as absent, so the JSON always has them.
    pub fn absent(&mut self, section: &'static str, keys: &[&str]) {
        for key in keys {
            if !self.rows.iter().any(|row| row.key == *key) {
                self.push(section, key, key, None, "", None);
            }
        }
    }
}

/// A figure with three significant digits, without a float tail.
fn number(value: f64) -> String {
    let magnitude = value.abs();
    if magnitude >= 1000.0 {
        format!("{value:.0}")
    } else if magnitude >= 100.0 {
        format!("{value:.1}")
    } else if magnitude >= 1.0 {
        format!("{value:.2}")
    } else {
        format!("{value:.3}")
    }
}

#[cfg(test)]
mod tests;
