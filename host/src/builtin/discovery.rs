//! Deferred tools and their discovery through `tool_search`.
//!
//! A deferred tool is listed to the model only by name and description until a `tool_search`
//! finds it; from then on it is exposed like a visible tool, but only while that search's call
//! and result are still in the model's context: when the engine trims its context, discovery
//! goes with it. The engine reports what is left with [`Discovery::sync_with_context`].
//!
//! Scoring is MaiBot's `search_deferred_tool_specs`, see [`score`].
//!
//! Each session's discoveries live in a [`DiscoveryStore`]: the host's memory by default, or
//! PostgreSQL when hosts share sessions.

mod backend;
mod memory;
mod postgres;

use std::collections::BTreeSet;
use std::sync::{Arc, Weak};

use maitool_protocol::{ToolAvailabilityContext, ToolSpec};
use parking_lot::RwLock;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use self::backend::{DiscoveryError, DiscoveryStore};
pub use self::memory::MemoryDiscoveries;
pub use self::postgres::PostgresDiscoveries;

use crate::registry::ToolRegistry;

use super::classify::classify;
use super::stage::Stage;

/// The default number of `tool_search` hits.
pub const DEFAULT_SEARCH_LIMIT: usize = 5;

/// A deferred tool as `tool_search` sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeferredTool {
    /// Tool name.
    pub name: String,
    /// Its description.
    pub description: String,
}

impl From<&std::sync::Arc<ToolSpec>> for DeferredTool {
    fn from(spec: &std::sync::Arc<ToolSpec>) -> Self {
        Self::from(spec.as_ref())
    }
}

impl From<&ToolSpec> for DeferredTool {
    fn from(spec: &ToolSpec) -> Self {
        Self {
            name: spec.name.clone(),
            description: spec.llm_description().to_owned(),
        }
    }
}

/// A `tool_search` hit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScoredTool {
    /// Tool name.
    pub name: String,
    /// Its description.
    pub description: String,
    /// Its score; higher is better.
    pub score: i64,
}

/// Lowercase with runs of whitespace collapsed to one space, trimmed.
fn normalize(text: &str) -> String {
    let mut normalized = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !normalized.is_empty() {
            normalized.push(' ');
        }
        normalized.extend(word.chars().flat_map(char::to_lowercase));
    }
    normalized
}

/// The terms of a normalized query: split on spaces, `_` and `-`.
fn query_terms(query: &str) -> Vec<&str> {
    query
        .split([' ', '_', '-'])
        .filter(|term| !term.is_empty())
        .collect()
}

/// MaiBot's score of one tool for a query: 1000 for an exact name, 300 when the name starts
/// with the query, 200 when it contains it, 100 when the description contains it, plus 25 per
/// term in the name and 10 per term in the description. All comparisons are on lowercase text
/// with whitespace collapsed.
pub fn score(query: &str, name: &str, description: &str) -> i64 {
    let query = normalize(query);
    score_normalized(&query, &query_terms(&query), name, description)
}

/// [`score`] with the query already normalized and split, so a search does that once.
fn score_normalized(query: &str, terms: &[&str], name: &str, description: &str) -> i64 {
    if query.is_empty() {
        return 0;
    }
    let (name, description) = (normalize(name), normalize(description));
    let mut score = 0;
    if name == query {
        score += 1000;
    }
    if name.starts_with(query) {
        score += 300;
    }
    if name.contains(query) {
        score += 200;
    }
    if description.contains(query) {
        score += 100;
    }
    for term in terms {
        if name.contains(term) {
            score += 25;
        }
        if description.contains(term) {
            score += 10;
        }
    }
    score
}

/// The best `limit` (at least 1) tools for `query`: scores above zero, ordered by score
/// descending, then name.
pub fn search(tools: &[DeferredTool], query: &str, limit: usize) -> Vec<ScoredTool> {
    let query = normalize(query);
    let terms = query_terms(&query);
    let mut hits: Vec<ScoredTool> = tools
        .iter()
        .filter_map(|tool| {
            let score = score_normalized(&query, &terms, &tool.name, &tool.description);
            (score > 0).then(|| ScoredTool {
                score,
                name: tool.name.clone(),
                description: tool.description.clone(),
            })
        })
        .collect();
    hits.sort_by(|a, b| b.score.cmp(&a.score).then_with(|| a.name.cmp(&b.name)));
    hits.truncate(limit.max(1));
    hits
}

/// A `tool_search` result still in the model's context, as the engine sees it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ContextSearchResult {
    /// The search call's id.
    pub call_id: String,
    /// The result's structured content (with `matched_tool_names`), if the engine kept it.
    pub structured_content: Option<Value>,
    /// The result text as it stands in history.
    pub content: String,
}

impl ContextSearchResult {
    /// A result known only by its call id.
    pub fn call(call_id: impl Into<String>) -> Self {
        Self {
            call_id: call_id.into(),
            ..Self::default()
        }
    }
}

/// The names a search result found, recovered from what survives in a context.
fn names_in_result(result: &ContextSearchResult) -> Option<Vec<String>> {
    if let Some(names) = result
        .structured_content
        .as_ref()
        .and_then(|value| value.get("matched_tool_names"))
        .and_then(Value::as_array)
    {
        return Some(
            names
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
        );
    }
    let mut names = Vec::new();
    for line in result.content.lines() {
        let line = line.trim();
        // Folded history: "- tool_search: a,b(...)".
        if let Some(folded) = line.strip_prefix("- tool_search:") {
            let list = folded.split('(').next().unwrap_or_default();
            names.extend(
                list.split(',')
                    .map(str::trim)
                    .filter(|name| !name.is_empty())
                    .map(str::to_owned),
            );
        } else if let Some(item) = line.strip_prefix("- ") {
            // The result's own lines: "- name (newly discovered)".
            if let Some(name) = item.split_whitespace().next() {
                names.push(name.to_owned());
            }
        }
    }
    (!names.is_empty()).then_some(names)
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct SearchRecord {
    call_id: String,
    names: Vec<String>,
}

/// What one session has discovered: the searches still in its context, and the deferred tools
/// they count against. Stored whole by a [`DiscoveryStore`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionDiscovery {
    /// The deferred tools as of the last exposure build, if any.
    pool: Option<Vec<DeferredTool>>,
    /// Searches whose results are in the context, oldest first.
    searches: Vec<SearchRecord>,
}

impl SessionDiscovery {
    fn discovered(&self) -> BTreeSet<String> {
        let found = self.searches.iter().flat_map(|search| search.names.iter());
        match &self.pool {
            Some(pool) => found
                .filter(|name| pool.iter().any(|tool| &tool.name == *name))
                .cloned()
                .collect(),
            None => found.cloned().collect(),
        }
    }
}

/// Discovery state of every session. Shared between the `tool_search` handler, the exposure
/// builder and the engine.
#[derive(Debug)]
pub struct Discovery {
    registry: RwLock<Option<Weak<ToolRegistry>>>,
    sessions: Arc<dyn DiscoveryStore>,
}

impl Default for Discovery {
    fn default() -> Self {
        Self::new()
    }
}

impl Discovery {
    /// Empty state in memory, with no registry attached.
    pub fn new() -> Self {
        Self::with_store(Arc::new(MemoryDiscoveries::default()))
    }

    /// State kept in `store` (shared between hosts with [`PostgresDiscoveries`]).
    pub fn with_store(store: Arc<dyn DiscoveryStore>) -> Self {
        Self {
            registry: RwLock::new(None),
            sessions: store,
        }
    }

    /// Lets `tool_search` read the current deferred tools from the registry itself, so a
    /// search works even before the engine built a tool set for the session. Only a weak
    /// reference is kept: the registry owns the provider that owns this.
    pub fn attach_registry(&self, registry: &Arc<ToolRegistry>) {
        *self.registry.write() = Some(Arc::downgrade(registry));
    }

    /// Applies `change` to the session's discoveries as one step of the store.
    async fn with<R: Send>(
        &self,
        session_id: &str,
        change: impl FnOnce(&mut SessionDiscovery) -> R + Send,
    ) -> Result<R, DiscoveryError> {
        let mut change = Some(change);
        let mut result = None;
        self.sessions
            .update(session_id, &mut |session| {
                if let Some(change) = change.take() {
                    result = Some(change(session));
                }
            })
            .await?;
        result.ok_or(DiscoveryError::NotApplied)
    }

    /// Records the session's current deferred tools, and returns what is discovered among
    /// them: discovered names that are no longer deferred stop counting.
    pub async fn set_deferred_pool(
        &self,
        session_id: &str,
        tools: Vec<DeferredTool>,
    ) -> Result<BTreeSet<String>, DiscoveryError> {
        self.with(session_id, |session| {
            session.pool = Some(tools);
            session.discovered()
        })
        .await
    }

    /// The deferred tools `tool_search` searches: read live (action stage) from the attached
    /// registry, else the pool of the last exposure build; `None` when neither is known.
    pub async fn deferred_pool(
        &self,
        session_id: &str,
        ctx: &ToolAvailabilityContext,
    ) -> Result<Option<Vec<DeferredTool>>, DiscoveryError> {
        let registry = self.registry.read().as_ref().and_then(Weak::upgrade);
        if let Some(registry) = registry {
            let specs = registry.list_tools(ctx).await;
            let pool: Vec<DeferredTool> = classify(specs, Stage::Action)
                .deferred
                .iter()
                .map(DeferredTool::from)
                .collect();
            self.set_deferred_pool(session_id, pool.clone()).await?;
            return Ok(Some(pool));
        }
        Ok(self.sessions.load(session_id).await?.pool)
    }

    /// Records a successful search by call `call_id` that matched `names`, and returns those
    /// that were not discovered before.
    pub async fn record_search(
        &self,
        session_id: &str,
        call_id: &str,
        names: &[String],
    ) -> Result<Vec<String>, DiscoveryError> {
        self.with(session_id, |session| {
            let before = session.discovered();
            session.searches.retain(|search| search.call_id != call_id);
            session.searches.push(SearchRecord {
                call_id: call_id.to_owned(),
                names: names.to_vec(),
            });
            names
                .iter()
                .filter(|name| !before.contains(*name))
                .cloned()
                .collect()
        })
        .await
    }

    /// The deferred tools discovered for the session and still backed by a search in context.
    pub async fn discovered(&self, session_id: &str) -> Result<BTreeSet<String>, DiscoveryError> {
        Ok(self.sessions.load(session_id).await?.discovered())
    }

    /// Keeps only the searches whose results are still in the model's context, given by the
    /// engine. Names come from each result's `structured_content.matched_tool_names`, else
    /// from the search recorded under its call id, else from its text (`- name ...` lines, or
    /// a folded `- tool_search: a,b(...)` line).
    pub async fn sync_with_context(
        &self,
        session_id: &str,
        in_context: &[ContextSearchResult],
    ) -> Result<(), DiscoveryError> {
        self.with(session_id, |session| {
            let searches = in_context
                .iter()
                .filter_map(|result| {
                    let names = names_in_result(result).or_else(|| {
                        session
                            .searches
                            .iter()
                            .find(|search| search.call_id == result.call_id)
                            .map(|search| search.names.clone())
                    })?;
                    Some(SearchRecord {
                        call_id: result.call_id.clone(),
                        names,
                    })
                })
                .collect();
            session.searches = searches;
        })
        .await
    }

    /// Drops everything known about a session.
    pub async fn forget_session(&self, session_id: &str) -> Result<(), DiscoveryError> {
        self.sessions.remove(session_id).await
    }
}
