//! The console's buttons: each runs the code the CLI verb runs on the control socket
//! (`restart`, `enable`/`disable` of a component, `reload`), or saves a plugin's `enabled`
//! into `maitool.toml` and reloads; then redirects back with what happened (POST, redirect,
//! GET: it works without JavaScript).

use axum::Form;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use serde::Deserialize;

use super::Shared;
use super::guard::{COOKIE, Guard};
use super::pages::{self, urlencode};
use crate::error_text::chain;

/// Back to the page the form was on, with `note` shown at its top.
fn back(headers: &HeaderMap, note: &str) -> Response {
    let page = headers
        .get(header::REFERER)
        .and_then(|r| r.to_str().ok())
        .and_then(|r| r.split_once("://"))
        .and_then(|(_, rest)| rest.find('/').map(|at| &rest[at..]))
        .map(|path| path.split('?').next().unwrap_or("/"))
        .filter(|path| path.starts_with('/') && !path.starts_with("//"))
        .unwrap_or("/");
    Redirect::to(&format!("{page}?note={}", urlencode(note))).into_response()
}

/// `POST /reload`: as `maitool reload`.
pub(super) async fn reload(State(console): State<Shared>, headers: HeaderMap) -> Response {
    let note = match console.host.reload().await {
        Ok(report) => format!(
            "Reloaded: {} added, {} removed, {} restarted, {} reconfigured{}",
            report.plugins.added.len(),
            report.plugins.removed.len(),
            report.plugins.restarted.len(),
            report.plugins.reconfigured.len(),
            if report.plugins.rejected.is_empty() && report.plugins.paused.is_empty() {
                String::new()
            } else {
                format!(
                    "; refused: {}",
                    [report.plugins.rejected, report.plugins.paused]
                        .concat()
                        .join("; ")
                )
            }
        ),
        Err(err) => format!("Reload failed: {}", chain(&err)),
    };
    back(&headers, &note)
}

/// `POST /runners/{name}/restart`: as `maitool restart NAME`.
pub(super) async fn restart(
    State(console): State<Shared>,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> Response {
    let note = match console.host.plugins.restart_runner(&name).await {
        Ok(()) => format!("Restarting runner {name}"),
        Err(err) => format!("Cannot restart {name}: {}", chain(&err)),
    };
    back(&headers, &note)
}

async fn switch_plugin(console: Shared, id: String, enabled: bool, headers: HeaderMap) -> Response {
    let verb = if enabled { "enabled" } else { "disabled" };
    let note = match console.configs.set_enabled(&id, enabled).await {
        Ok(_) => format!("Plugin {id} {verb} (saved in the configuration file)"),
        Err(err) => format!("Plugin {id} not {verb}: {}", chain(&err)),
    };
    back(&headers, &note)
}

/// `POST /plugins/{id}/enable`.
pub(super) async fn enable_plugin(
    State(console): State<Shared>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    switch_plugin(console, id, true, headers).await
}

/// `POST /plugins/{id}/disable`.
pub(super) async fn disable_plugin(
    State(console): State<Shared>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    switch_plugin(console, id, false, headers).await
}

async fn switch_component(
    console: &Shared,
    name: &str,
    enabled: bool,
    headers: &HeaderMap,
) -> Response {
    let note = match console
        .host
        .plugins
        .set_component_enabled(name, enabled, None)
        .await
    {
        Ok(full_name) => format!(
            "{} {full_name}",
            if enabled { "Enabled" } else { "Disabled" }
        ),
        Err(err) => chain(&err),
    };
    back(headers, &note)
}

/// `POST /components/{name}/enable`: as `maitool enable NAME`.
pub(super) async fn enable_component(
    State(console): State<Shared>,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> Response {
    switch_component(&console, &name, true, &headers).await
}

/// `POST /components/{name}/disable`: as `maitool disable NAME`.
pub(super) async fn disable_component(
    State(console): State<Shared>,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> Response {
    switch_component(&console, &name, false, &headers).await
}

/// `GET /login`.
pub(super) async fn login_page() -> maud::Markup {
    pages::login(None)
}

/// The login form.
#[derive(Debug, Deserialize)]
pub(super) struct Login {
    token: String,
}

/// `POST /login`: sets the session cookie when the token is right.
pub(super) async fn login(
    axum::Extension(guard): axum::Extension<std::sync::Arc<Guard>>,
    Form(login): Form<Login>,
) -> Response {
    if !guard.has_token() {
        return Redirect::to("/").into_response();
    }
    if !guard.token_matches(&login.token) {
        tracing::warn!("web console: a login with a wrong token");
        return (
            StatusCode::UNAUTHORIZED,
            pages::login(Some("That is not the console's token.")),
        )
            .into_response();
    }
    let cookie = format!(
        "{COOKIE}={}; Path=/; HttpOnly; SameSite=Strict",
        login.token
    );
    ([(header::SET_COOKIE, cookie)], Redirect::to("/")).into_response()
}
