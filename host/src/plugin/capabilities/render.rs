//! `render.html2png`: HTML rendered to a PNG by a headless Chromium (`crate::render`), with
//! MaiBot's arguments (`html`, `selector`, `viewport {width, height}`, `device_scale_factor`,
//! `full_page`, `omit_background`, `wait_until`, `wait_for_selector`, `wait_for_timeout_ms`,
//! `render_timeout_ms` or `timeout_ms`, `allow_network`) read as leniently as MaiBot reads them,
//! and MaiBot's answer: `{success: true, result: {image_base64, mime_type, width, height,
//! render_ms}}`, or `{success: false, error}` (no browser: the package to install; a selector
//! that matches nothing; a timeout), which the SDK hands to the plugin so its text fallback
//! runs.

use base64::Engine as _;
use maitool_protocol::rpc::RpcError;
use serde_json::{Value, json};

use super::CapabilityService;
use super::args::Args;
use super::refused::unsuccessful_value;
use crate::render::{HtmlRequest, render_html};

impl CapabilityService {
    pub(super) async fn render(&self, args: Args<'_>) -> Result<Value, RpcError> {
        let request = request(&args);
        let config = self.render.read().clone();
        // Each render is a browser: a few at once, the rest wait their turn.
        let Ok(_permit) = self.renders.acquire().await else {
            return Ok(unsuccessful_value(
                "render.html2png: the host is shutting down",
            ));
        };
        match render_html(&config, &request).await {
            Ok(rendered) => Ok(json!({
                "success": true,
                "result": {
                    "image_base64": base64::engine::general_purpose::STANDARD.encode(&rendered.png),
                    "mime_type": "image/png",
                    "width": rendered.width,
                    "height": rendered.height,
                    "render_ms": rendered.elapsed.as_millis() as u64,
                },
            })),
            Err(err) => {
                let text = crate::error_text::chain(&err);
                tracing::debug!("render.html2png failed: {text}");
                Ok(unsuccessful_value(format!(
                    "render.html2png failed: {text}"
                )))
            }
        }
    }
}

/// MaiBot's reading: a value that does not convert takes the default.
fn request(args: &Args<'_>) -> HtmlRequest {
    let defaults = HtmlRequest::default();
    let value = |key: &str| args.value(key);
    let text = |key: &str, default: &str| match value(key) {
        Some(Value::String(text)) if !text.is_empty() => text.clone(),
        Some(Value::Number(number)) => number.to_string(),
        _ => default.to_owned(),
    };
    let viewport = value("viewport");
    let dimension = |key: &str, default: u32| {
        viewport
            .and_then(|v| v.get(key))
            .and_then(number)
            .filter(|n| *n >= 1.0 && *n <= 16_384.0)
            .map_or(default, |n| n as u32)
    };
    let timeout = value("render_timeout_ms")
        .or_else(|| value("timeout_ms"))
        .and_then(number)
        .filter(|n| *n > 0.0)
        .map_or(0, |n| n as u64);
    HtmlRequest {
        html: text("html", ""),
        selector: text("selector", "body"),
        width: dimension("width", defaults.width),
        height: dimension("height", defaults.height),
        device_scale_factor: value("device_scale_factor")
            .and_then(number)
            .unwrap_or(defaults.device_scale_factor),
        full_page: value("full_page").is_some_and(truthy),
        omit_background: value("omit_background").is_some_and(truthy),
        wait_for_selector: text("wait_for_selector", ""),
        wait_for_timeout_ms: value("wait_for_timeout_ms")
            .and_then(number)
            .filter(|n| *n > 0.0)
            .map_or(0, |n| n as u64),
        timeout_ms: timeout,
        allow_network: value("allow_network").is_some_and(truthy),
    }
}

fn number(value: &Value) -> Option<f64> {
    match value {
        Value::Number(number) => number.as_f64(),
        Value::String(text) => text.trim().parse().ok(),
        _ => None,
    }
    .filter(|n: &f64| n.is_finite())
}

/// MaiBot's truthiness of an option: `"false"`, `"0"`, `"no"`, `"off"` are false.
fn truthy(value: &Value) -> bool {
    match value {
        Value::Bool(flag) => *flag,
        Value::String(text) => !matches!(
            text.trim().to_ascii_lowercase().as_str(),
            "" | "0" | "false" | "no" | "off"
        ),
        Value::Number(number) => number.as_f64().is_some_and(|n| n != 0.0),
        Value::Null => false,
        _ => true,
    }
}
