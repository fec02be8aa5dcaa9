//! Rendering through a real headless Chromium (Debian's `chromium`, which `.ci/run`
//! installs); skips loudly without one unless `MAITOOL_REQUIRE_CHROMIUM=1`, as CI sets.

use super::*;

#[cfg(feature = "render")]
/// The configuration of the machine's browser, or `None` after a loud skip.
fn browser() -> Option<RenderConfig> {
    let config = RenderConfig::default();
    match config.find_browser() {
        Ok(_) => Some(config),
        Err(err) if std::env::var("MAITOOL_REQUIRE_CHROMIUM").as_deref() == Ok("1") => {
            panic!("{err}; MAITOOL_REQUIRE_CHROMIUM=1 requires it")
        }
        Err(_) => {
            announce_skip("render tests");
            None
        }
    }
}

#[cfg(feature = "render")]
fn page(html: &str) -> HtmlRequest {
    HtmlRequest {
        html: html.into(),
        ..HtmlRequest::default()
    }
}

#[cfg(feature = "render")]
/// The RGBA of the pixel at (x, y) of a PNG, decoded by the `png` crate: the tests check
/// colours, not only sizes.
fn pixel(png: &[u8], x: u32, y: u32) -> [u8; 4] {
    let mut decoder = ::png::Decoder::new(std::io::Cursor::new(png));
    decoder.set_transformations(::png::Transformations::ALPHA);
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let frame = reader.next_frame(&mut pixels).unwrap();
    assert_eq!(frame.bit_depth, ::png::BitDepth::Eight);
    let channels = frame.color_type.samples();
    let at = (y as usize * frame.width as usize + x as usize) * channels;
    match channels {
        4 => pixels[at..at + 4].try_into().unwrap(),
        2 => [pixels[at], pixels[at], pixels[at], pixels[at + 1]],
        other => panic!("{other} channels after ALPHA"),
    }
}

#[test]
fn png_dimensions_read_the_header_and_refuse_other_bytes() {
    let mut header = PNG_HEADER_1X2.to_vec();
    assert_eq!(png_dimensions(&header), Some((1, 2)));
    header[1] = b'X';
    assert_eq!(png_dimensions(&header), None);
    assert_eq!(png_dimensions(b"\x89PNG"), None);
}

const PNG_HEADER_1X2: [u8; 24] = [
    0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n', 0, 0, 0, 13, b'I', b'H', b'D', b'R', 0, 0,
    0, 1, 0, 0, 0, 2,
];

#[test]
fn a_missing_browser_is_named_with_the_package_to_install() {
    let config = RenderConfig {
        browser: Some("/nonexistent/chromium".into()),
        ..RenderConfig::default()
    };
    let err = config.find_browser().unwrap_err().to_string();
    assert!(
        err.contains("/nonexistent/chromium") && err.contains("apt-get install chromium"),
        "{err}"
    );
    assert_eq!(
        RenderConfig {
            timeout_ms: 0,
            ..RenderConfig::default()
        }
        .validate(),
        Err(RenderConfigError::ZeroTimeout)
    );
}

#[cfg(feature = "render")]
#[tokio::test]
async fn an_element_renders_at_the_device_scale_with_its_colours() {
    let Some(config) = browser() else { return };
    let html = r#"<html><body style="margin:0;background:#fff">
        <div id="card" style="width:120px;height:80px;background:rgb(255,0,0)">
          <div style="width:60px;height:40px;background:rgb(0,0,255)"></div></div>
        <p>below</p></body></html>"#;
    let rendered = render_html(
        &config,
        &HtmlRequest {
            selector: "#card".into(),
            device_scale_factor: 2.0,
            ..page(html)
        },
    )
    .await
    .unwrap();
    assert_eq!(&rendered.png[..8], &super::png::PNG_SIGNATURE);
    assert_eq!((rendered.width, rendered.height), (240, 160));
    assert_eq!(
        png_dimensions(&rendered.png),
        Some((rendered.width, rendered.height))
    );
    assert_eq!(pixel(&rendered.png, 10, 10), [0, 0, 255, 255]);
    assert_eq!(pixel(&rendered.png, 200, 140), [255, 0, 0, 255]);
}

#[cfg(feature = "render")]
#[tokio::test]
async fn full_page_omit_background_and_a_missing_selector() {
    let Some(config) = browser() else { return };
    let tall = r#"<html><body style="margin:0">
        <div style="width:50px;height:1500px;background:rgb(0,128,0)"></div></body></html>"#;
    let whole = render_html(
        &config,
        &HtmlRequest {
            full_page: true,
            omit_background: true,
            device_scale_factor: 1.0,
            width: 300,
            height: 200,
            ..page(tall)
        },
    )
    .await
    .unwrap();
    assert_eq!((whole.width, whole.height), (300, 1500));
    // The page paints no background right of the div: transparent there.
    assert_eq!(pixel(&whole.png, 250, 1400)[3], 0);
    assert_eq!(pixel(&whole.png, 10, 1400), [0, 128, 0, 255]);

    let missing = render_html(
        &config,
        &HtmlRequest {
            selector: "#nothing".into(),
            ..page(tall)
        },
    )
    .await
    .unwrap_err();
    assert!(
        matches!(missing, RenderError::NoElement(ref s) if s == "#nothing"),
        "{missing}"
    );
    let invalid = render_html(
        &config,
        &HtmlRequest {
            selector: "[[".into(),
            ..page(tall)
        },
    )
    .await
    .unwrap_err();
    assert!(
        invalid.to_string().contains("not a valid selector"),
        "{invalid}"
    );
}

#[cfg(feature = "render")]
#[tokio::test]
async fn a_page_waits_for_its_selector_and_times_out_without_leaving_a_browser() {
    let Some(config) = browser() else { return };
    let late = r#"<html><body><script>
        setTimeout(() => { const d = document.createElement('div'); d.id = 'late';
          d.style = 'width:10px;height:10px;background:#000'; document.body.appendChild(d); }, 200);
        </script></body></html>"#;
    let rendered = render_html(
        &config,
        &HtmlRequest {
            selector: "#late".into(),
            wait_for_selector: "#late".into(),
            device_scale_factor: 1.0,
            ..page(late)
        },
    )
    .await
    .unwrap();
    assert_eq!((rendered.width, rendered.height), (10, 10));

    let never = render_html(
        &config,
        &HtmlRequest {
            wait_for_selector: "#never".into(),
            timeout_ms: 1_500,
            ..page("<p>x</p>")
        },
    )
    .await
    .unwrap_err();
    assert!(matches!(never, RenderError::Timeout(1_500)), "{never}");
    // No browser of this process is left running.
    let children =
        std::fs::read_to_string(format!("/proc/{0}/task/{0}/children", std::process::id()))
            .unwrap_or_default();
    for pid in children.split_whitespace() {
        let command = std::fs::read_to_string(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        assert!(
            !command.contains("maitool-render-"),
            "left running: {command}"
        );
    }
}

#[cfg(feature = "render")]
#[tokio::test]
async fn without_network_a_page_cannot_fetch() {
    let Some(config) = browser() else { return };
    // A local server the page would reach if requests went out.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    let html = format!(
        r#"<html><body><img id="i" src="http://127.0.0.1:{port}/x.png"
             onerror="document.body.dataset.done='1'" onload="document.body.dataset.done='1'">
           <div id="card" style="width:5px;height:5px;background:#000"></div></body></html>"#
    );
    render_html(
        &config,
        &HtmlRequest {
            selector: "#card".into(),
            wait_for_selector: "body[data-done]".into(),
            ..page(&html)
        },
    )
    .await
    .unwrap();
    assert!(
        listener.accept().is_err(),
        "the page reached the local server without allow_network"
    );
}
