//! Checking and saving a plugin's configuration form: as it is typed (htmx posts it to
//! `/config/check`, which answers each field's error out of band) and when it is saved; and
//! the raw TOML mode, which saves only what parses and validates. Saving goes through
//! [`PluginConfigs`](crate::plugin_config::PluginConfigs): nothing is written unless it is
//! valid, and what the plugin refuses is rolled back.

use std::collections::HashMap;

use axum::Form;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use maitool_protocol::JsonObject;
use maud::{Markup, html};

use super::Shared;
use super::config_form::{FormState, checked, error_id, pointer_to_name};
use super::pages::urlencode;
use crate::error_text::chain;
use crate::plugin_config::{FieldError, PluginConfigError};

/// `POST /plugins/{id}/config/check` (htmx, as the form is typed): every field's error
/// element, out of band, empty where the field is fine.
pub(super) async fn check(
    State(console): State<Shared>,
    Path(id): Path<String>,
    Form(pairs): Form<Vec<(String, String)>>,
) -> Markup {
    let (errors, names) = match checked(&console.configs, &id, &pairs) {
        Ok((_, errors)) => (errors, pairs.iter().map(|(k, _)| k.clone()).collect()),
        Err(err) => (
            vec![FieldError {
                path: String::new(),
                message: chain(&err),
            }],
            Vec::new(),
        ),
    };
    let by_name: HashMap<String, &str> = errors
        .iter()
        .map(|e| (pointer_to_name(&e.path), e.message.as_str()))
        .collect();
    let mut names: Vec<String> = names;
    names.dedup();
    html! {
        span id="err-form" class="field-error" hx-swap-oob="true" {
            (by_name.get("").copied().unwrap_or(""))
        }
        @for name in &names {
            span id=(error_id(name)) class="field-error" hx-swap-oob="true" {
                (by_name.get(name.as_str()).copied().unwrap_or(""))
            }
        }
    }
}

/// The plugin page again, with `form`'s values and errors, as 422.
async fn refused(console: &super::Console, id: &str, form: FormState) -> Response {
    match super::pages::plugin_page(console, id, form, &HashMap::new()).await {
        Some(page) => (StatusCode::UNPROCESSABLE_ENTITY, page).into_response(),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

/// `POST /plugins/{id}/config`: saves and applies the form, or shows it again with its
/// errors and saves nothing.
pub(super) async fn save(
    State(console): State<Shared>,
    Path(id): Path<String>,
    Form(pairs): Form<Vec<(String, String)>>,
) -> Response {
    let (config, errors) = match checked(&console.configs, &id, &pairs) {
        Ok(checked) => checked,
        Err(err) => {
            return refused(&console, &id, general(&err, None)).await;
        }
    };
    if !errors.is_empty() {
        let form = FormState {
            values: Some(config),
            errors,
            ..FormState::default()
        };
        return refused(&console, &id, form).await;
    }
    match console.configs.apply(&id, config.clone()).await {
        Ok(_) => saved(&id),
        Err(PluginConfigError::Invalid(errors)) => {
            let form = FormState {
                values: Some(config),
                errors,
                ..FormState::default()
            };
            refused(&console, &id, form).await
        }
        Err(err) => refused(&console, &id, general(&err, Some(config))).await,
    }
}

/// A form whose problem is not one field's.
fn general(err: &PluginConfigError, values: Option<JsonObject>) -> FormState {
    FormState {
        values,
        errors: vec![FieldError {
            path: String::new(),
            message: chain(err),
        }],
        ..FormState::default()
    }
}

fn saved(id: &str) -> Response {
    axum::response::Redirect::to(&format!(
        "/plugins/{}?note={}",
        urlencode(id),
        urlencode("Configuration saved and applied")
    ))
    .into_response()
}

/// `POST /plugins/{id}/config/raw`: saves the TOML only if it parses and validates.
pub(super) async fn save_raw(
    State(console): State<Shared>,
    Path(id): Path<String>,
    Form(pairs): Form<Vec<(String, String)>>,
) -> Response {
    let text = pairs
        .into_iter()
        .find(|(k, _)| k == "raw")
        .map(|(_, v)| v)
        .unwrap_or_default();
    match console.configs.apply_raw(&id, &text).await {
        Ok(_) => saved(&id),
        Err(err) => {
            let form = FormState {
                raw_error: Some(chain(&err)),
                raw: Some(text),
                ..FormState::default()
            };
            refused(&console, &id, form).await
        }
    }
}
