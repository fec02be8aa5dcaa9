//! HTML rendered to PNG by a real headless browser: Debian's `chromium` (or any Chromium the
//! operator names in `[render] browser`), driven over the Chrome DevTools Protocol
//! (chromiumoxide). Each render starts a fresh browser with a private profile in a temporary
//! directory, loads the page from a file there, screenshots it and ends the browser's whole
//! process group, so nothing outlives a render, a timeout or a host killed mid-render.
//!
//! The browser is optional at run time: without one, a render fails with
//! [`RenderError::NoBrowser`], which names the package to install. Pages reach no network
//! unless the request allows it (every request goes to a dead proxy). Without the `render`
//! feature the host is built without the DevTools client and says so.

#[cfg(feature = "render")]
mod browser;
mod config;
#[cfg(feature = "render")]
mod page;
mod png;

#[cfg(test)]
mod tests;

use std::path::PathBuf;
use std::time::Duration;

pub use config::{RenderConfig, RenderConfigError};
pub use png::png_dimensions;

/// One page to render, with MaiBot's `render.html2png` options.
#[derive(Debug, Clone, PartialEq)]
pub struct HtmlRequest {
    /// The page's HTML.
    pub html: String,
    /// The element to capture (its first match); `body` by default.
    pub selector: String,
    /// The viewport in CSS pixels.
    pub width: u32,
    /// The viewport in CSS pixels.
    pub height: u32,
    /// Device pixels per CSS pixel (the PNG is this much larger than the element).
    pub device_scale_factor: f64,
    /// With `selector` `body`: the whole page, not only the body's box.
    pub full_page: bool,
    /// A transparent background where the page paints none.
    pub omit_background: bool,
    /// An element to wait for after the page has loaded.
    pub wait_for_selector: String,
    /// A further wait after loading, in milliseconds.
    pub wait_for_timeout_ms: u64,
    /// The whole render's limit; the configured default when zero.
    pub timeout_ms: u64,
    /// Whether the page may fetch from the network.
    pub allow_network: bool,
}

impl Default for HtmlRequest {
    /// MaiBot's defaults: `body`, 900 × 500, scale 2.
    fn default() -> Self {
        Self {
            html: String::new(),
            selector: "body".into(),
            width: 900,
            height: 500,
            device_scale_factor: 2.0,
            full_page: false,
            omit_background: false,
            wait_for_selector: String::new(),
            wait_for_timeout_ms: 0,
            timeout_ms: 0,
            allow_network: false,
        }
    }
}

/// A rendered page.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderedPng {
    /// The PNG file.
    pub png: Vec<u8>,
    /// Its width in pixels.
    pub width: u32,
    /// Its height in pixels.
    pub height: u32,
    /// How long the render took.
    pub elapsed: Duration,
}

/// Why a page could not be rendered.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// No browser was found (what was looked for is in the message).
    #[error(
        "no headless Chromium found ({looked}); install Debian's `chromium` package (apt-get install chromium) or set [render] browser"
    )]
    NoBrowser {
        /// Where the host looked.
        looked: String,
    },
    /// This build has no DevTools client.
    #[error("this maitool was built without the `render` feature")]
    NotBuilt,
    /// The request itself is unusable; the text says why.
    #[error("{0}")]
    Invalid(String),
    /// The browser could not be started.
    #[error("cannot start {browser}")]
    Launch {
        /// The executable.
        browser: PathBuf,
        /// The OS's reason.
        source: std::io::Error,
    },
    /// The browser started but did not offer its DevTools endpoint.
    #[error("{browser} did not start its DevTools endpoint: {detail}")]
    NoEndpoint {
        /// The executable.
        browser: PathBuf,
        /// What it printed or how it ended.
        detail: String,
    },
    /// The page or the DevTools connection failed.
    #[error("the browser failed: {0}")]
    Browser(String),
    /// The selector matched nothing (or only invisible elements).
    #[error("no visible element matches selector {0:?}")]
    NoElement(String),
    /// The render took longer than allowed.
    #[error("the render took longer than {0} ms")]
    Timeout(u64),
    /// A temporary file for the page could not be written.
    #[error("cannot prepare the page")]
    Io(#[source] std::io::Error),
}

/// Says on the test output that a render test skipped for want of a browser.
#[cfg(all(test, feature = "render"))]
pub(crate) fn announce_skip(test: &str) {
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr().lock(),
        "\n======== SKIPPED: {test}: no chromium on PATH (apt-get install chromium) ========\n"
    );
}

/// Renders `request` with the browser `config` names (or finds), within its timeout.
pub async fn render_html(
    config: &RenderConfig,
    request: &HtmlRequest,
) -> Result<RenderedPng, RenderError> {
    if request.html.trim().is_empty() {
        return Err(RenderError::Invalid("argument `html` is empty".into()));
    }
    if request.width == 0 || request.height == 0 {
        return Err(RenderError::Invalid(
            "the viewport's width and height must be positive".into(),
        ));
    }
    if !(request.device_scale_factor.is_finite()
        && (0.1..=8.0).contains(&request.device_scale_factor))
    {
        return Err(RenderError::Invalid(format!(
            "device_scale_factor must be between 0.1 and 8, not {}",
            request.device_scale_factor
        )));
    }
    let browser = config.find_browser()?;
    render_with(&browser, config, request).await
}

#[cfg(feature = "render")]
async fn render_with(
    browser: &std::path::Path,
    config: &RenderConfig,
    request: &HtmlRequest,
) -> Result<RenderedPng, RenderError> {
    let timeout_ms = if request.timeout_ms == 0 {
        config.timeout_ms
    } else {
        request.timeout_ms
    };
    let started = std::time::Instant::now();
    let mut running = browser::Running::start(browser, request.allow_network).await?;
    let rendered = tokio::time::timeout(
        Duration::from_millis(timeout_ms),
        page::capture(&running, request),
    )
    .await;
    // The process group ends whatever happened; a failed render keeps its own error.
    running.stop().await;
    let png = rendered.map_err(|_| RenderError::Timeout(timeout_ms))??;
    let (width, height) = png_dimensions(&png)
        .ok_or_else(|| RenderError::Browser("the screenshot is not a PNG".into()))?;
    Ok(RenderedPng {
        png,
        width,
        height,
        elapsed: started.elapsed(),
    })
}

#[cfg(not(feature = "render"))]
async fn render_with(
    _browser: &std::path::Path,
    _config: &RenderConfig,
    _request: &HtmlRequest,
) -> Result<RenderedPng, RenderError> {
    Err(RenderError::NotBuilt)
}
