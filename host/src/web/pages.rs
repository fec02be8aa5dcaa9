//! The console's pages: the layout, the overview, a plugin's page and the login page.

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use maud::{DOCTYPE, Markup, html};

use super::Shared;
use super::config_form::{self, FormState};
use super::views::{self, Snapshot};

/// The page around `body`: htmx and its SSE extension from the console itself.
pub(super) fn layout(title: &str, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " — maitool" }
                link rel="stylesheet" href="/assets/console.css";
                script src="/assets/htmx.min.js" {}
                script src="/assets/sse.min.js" {}
            }
            body {
                header {
                    h1 { "maitool" }
                    nav {
                        a href="/" { "Overview" } " · "
                        a href="/logs" { "Logs" }
                    }
                    form.inline method="post" action="/reload" {
                        button type="submit" { "Reload configuration" }
                    }
                }
                main { (body) }
            }
        }
    }
}

/// The note a redirect after an action carries (`?note=`).
fn note(query: &HashMap<String, String>) -> Markup {
    html! {
        @if let Some(note) = query.get("note") { div.note role="status" { (note) } }
    }
}

/// `GET /`: runners, plugins, tools and MCP servers, live.
pub(super) async fn overview(
    State(console): State<Shared>,
    Query(query): Query<HashMap<String, String>>,
) -> Markup {
    let snapshot = Snapshot::of(&console.host).await;
    let rates = views::Rates::new();
    layout(
        "Overview",
        html! {
            (note(&query))
            div hx-ext="sse" sse-connect="/events" {
                section { h2 { "Runners" } div #runners sse-swap="runners" { (views::runners(&snapshot.runners)) } }
                section { h2 { "Plugins" } div #plugins sse-swap="plugins" { (views::plugin_rows(&snapshot.plugins)) } }
                section { h2 { "Tools" } div #tools sse-swap="tools" { (views::tools(&snapshot, &rates)) } }
                section { h2 { "MCP servers" } div #mcp sse-swap="mcp" { (views::mcp(&snapshot.mcp)) } }
            }
        },
    )
}

/// `GET /plugins/{id}`: the plugin's state and components, live, and its configuration form.
pub(super) async fn plugin(
    State(console): State<Shared>,
    Path(id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    match plugin_page(&console, &id, FormState::default(), &query).await {
        Some(page) => page.into_response(),
        None => (
            StatusCode::NOT_FOUND,
            layout("Not found", html! { p.error { "No plugin " (id) "." } }),
        )
            .into_response(),
    }
}

/// The plugin page with `form` (values and errors of a submitted form, or none).
pub(super) async fn plugin_page(
    console: &super::Console,
    id: &str,
    form: FormState,
    query: &HashMap<String, String>,
) -> Option<Markup> {
    let plugins = crate::control::views::plugins(&console.host);
    let plugin = plugins.iter().find(|p| p.id == id)?;
    let events = format!("/events?plugin={}", urlencode(id));
    Some(layout(
        id,
        html! {
            (note(query))
            div hx-ext="sse" sse-connect=(events) {
                section {
                    h2 { "Plugin " (id) }
                    div #plugin-detail sse-swap="plugin" { (detail(plugin)) }
                }
            }
            section #config {
                h2 { "Configuration" }
                (config_form::render(&console.configs, id, &form))
            }
        },
    ))
}

/// A plugin's state, reason, capabilities and components.
pub(super) fn detail(plugin: &crate::control::views::PluginView) -> Markup {
    let state = serde_json::to_value(plugin.state)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    html! {
        p {
            "Version " (plugin.version) ", runner " (plugin.runner) ": "
            span class={ "state state-" (state) } { (state) } " "
            (views::plugin_switch(plugin))
        }
        @if let Some(reason) = &plugin.reason { p.reason { (reason) } }
        p.muted {
            "Declared capabilities: " (plugin.declared_capabilities.join(", ")) br;
            "Granted: " (plugin.granted_capabilities.join(", "))
        }
        table {
            thead { tr { th { "Component" } th { "Kind" } th { "Visibility" } th { "Runs" } th { "Enabled" } th {} } }
            tbody {
                @for component in &plugin.components {
                    tr data-component=(component.full_name) {
                        td { (component.full_name) }
                        td { (component.component_type) }
                        td { (serde_json::to_value(component.visibility).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()) }
                        td.muted { (component.runs) }
                        td { @if component.enabled { "yes" } @else { span class="state state-disabled" { "disabled" } } }
                        td {
                            @let verb = if component.enabled { "disable" } else { "enable" };
                            form.inline method="post" action={ "/components/" (component.full_name) "/" (verb) } {
                                button type="submit" { (if component.enabled { "Disable" } else { "Enable" }) }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The login page (a console with a token), with a problem to show.
pub(super) fn login(problem: Option<&str>) -> Markup {
    layout(
        "Log in",
        html! {
            section {
                h2 { "Log in" }
                @if let Some(problem) = problem { p.error { (problem) } }
                form method="post" action="/login" {
                    label for="token" { "Console token" }
                    input #token type="password" name="token" autocomplete="current-password";
                    button type="submit" { "Log in" }
                }
            }
        },
    )
}

/// Percent-encodes a query value.
pub(super) fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
