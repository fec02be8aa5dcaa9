//! The DevTools steps of one render: viewport, background, the page loaded from a file, the
//! waits, and the screenshot of the element (or the whole page) at the device scale.

use std::time::Duration;

use base64::Engine as _;
use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::dom::Rgba;
use chromiumoxide::cdp::browser_protocol::emulation::{
    SetDefaultBackgroundColorOverrideParams, SetDeviceMetricsOverrideParams,
};
use chromiumoxide::cdp::browser_protocol::page::{
    CaptureScreenshotFormat, CaptureScreenshotParams, Viewport,
};

use super::browser::Running;
use super::{HtmlRequest, RenderError};

/// How often a selector being waited for is looked up.
const POLL: Duration = Duration::from_millis(50);

fn browser_error(err: impl std::fmt::Display) -> RenderError {
    RenderError::Browser(err.to_string())
}

/// Renders the request in the running browser; the caller bounds it with the timeout.
pub(super) async fn capture(
    running: &Running,
    request: &HtmlRequest,
) -> Result<Vec<u8>, RenderError> {
    let file = running.page_file();
    tokio::fs::write(&file, &request.html)
        .await
        .map_err(RenderError::Io)?;
    let page = running
        .browser
        .new_page("about:blank")
        .await
        .map_err(browser_error)?;
    page.execute(SetDeviceMetricsOverrideParams::new(
        i64::from(request.width),
        i64::from(request.height),
        request.device_scale_factor,
        false,
    ))
    .await
    .map_err(browser_error)?;
    if request.omit_background {
        page.execute(SetDefaultBackgroundColorOverrideParams {
            color: Some(Rgba {
                r: 0,
                g: 0,
                b: 0,
                a: Some(0.0),
            }),
        })
        .await
        .map_err(browser_error)?;
    }
    let url = format!("file://{}", file.display());
    page.goto(url).await.map_err(browser_error)?;
    // Web fonts the page loads change its layout: capture after they are in.
    evaluate(&page, "document.fonts.ready.then(() => true)").await?;
    let wanted = request.wait_for_selector.trim();
    if !wanted.is_empty() {
        let present = format!("document.querySelector({}) !== null", js_string(wanted));
        while evaluate(&page, &present).await? != serde_json::Value::Bool(true) {
            tokio::time::sleep(POLL).await;
        }
    }
    if request.wait_for_timeout_ms > 0 {
        tokio::time::sleep(Duration::from_millis(request.wait_for_timeout_ms)).await;
    }
    let selector = match request.selector.trim() {
        "" => "body",
        selector => selector,
    };
    let clip = if request.full_page && selector == "body" {
        evaluate(
            &page,
            "[0, 0, document.documentElement.scrollWidth, document.documentElement.scrollHeight]",
        )
        .await?
    } else {
        // The first match with a box, in page coordinates (what Playwright's locator captures).
        let script = format!(
            "(() => {{ const el = Array.from(document.querySelectorAll({})).find(e => {{
                 const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; }});
               if (!el) return null;
               const r = el.getBoundingClientRect();
               return [r.left + window.scrollX, r.top + window.scrollY, r.width, r.height]; }})()",
            js_string(selector)
        );
        evaluate(&page, &script).await?
    };
    let numbers: Vec<f64> = match &clip {
        serde_json::Value::Array(items) => items.iter().filter_map(|n| n.as_f64()).collect(),
        _ => Vec::new(),
    };
    let [x, y, width, height] = numbers[..] else {
        return Err(RenderError::NoElement(selector.to_owned()));
    };
    if width <= 0.0 || height <= 0.0 {
        return Err(RenderError::NoElement(selector.to_owned()));
    }
    let shot = page
        .execute(CaptureScreenshotParams {
            format: Some(CaptureScreenshotFormat::Png),
            clip: Some(Viewport {
                x,
                y,
                width,
                height,
                scale: 1.0,
            }),
            from_surface: Some(true),
            capture_beyond_viewport: Some(true),
            ..CaptureScreenshotParams::default()
        })
        .await
        .map_err(browser_error)?;
    base64::engine::general_purpose::STANDARD
        .decode(shot.result.data.as_ref() as &str)
        .map_err(|err| RenderError::Browser(format!("the screenshot is not base64: {err}")))
}

/// The value of a JavaScript expression (promises awaited); a thrown exception is an error
/// naming it (an invalid selector, say).
async fn evaluate(page: &Page, expression: &str) -> Result<serde_json::Value, RenderError> {
    let result = page
        .evaluate_expression(expression)
        .await
        .map_err(|err| match err {
            chromiumoxide::error::CdpError::JavascriptException(details) => {
                RenderError::Invalid(format!(
                    "the page's script failed: {}",
                    details
                        .exception
                        .as_ref()
                        .and_then(|e| e.description.clone())
                        .unwrap_or(details.text)
                ))
            }
            other => browser_error(other),
        })?;
    Ok(result.value().cloned().unwrap_or(serde_json::Value::Null))
}

/// `text` as a JavaScript string literal.
fn js_string(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}
