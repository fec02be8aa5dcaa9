//! `render.html2png` with MaiBot's arguments and answer, through a real headless Chromium
//! (skipping loudly without one unless `MAITOOL_REQUIRE_CHROMIUM=1`), and its refusal when the
//! host finds no browser.

use serde_json::json;

use super::{call, service};
use crate::render::RenderConfig;

#[cfg(feature = "render")]
#[tokio::test]
async fn a_card_renders_to_a_png_in_maibots_result_shape() {
    use crate::render::png_dimensions;
    use base64::Engine as _;
    let (service, _) = service(&["render.*"]).await;
    if RenderConfig::default().find_browser().is_err() {
        assert_ne!(
            std::env::var("MAITOOL_REQUIRE_CHROMIUM").as_deref(),
            Ok("1"),
            "MAITOOL_REQUIRE_CHROMIUM=1 requires a chromium on PATH"
        );
        crate::render::announce_skip("render.html2png capability test");
        return;
    }
    // As the SDK sends it, every option present.
    let answer = call(
        &service,
        "render.html2png",
        json!({"html": "<div id='card' style='width:90px;height:30px;background:#123456'></div>",
               "selector": "#card", "viewport": {"width": 400, "height": "300"},
               "device_scale_factor": 1.5, "full_page": false, "omit_background": "false",
               "wait_until": "load", "wait_for_selector": "", "wait_for_timeout_ms": 0,
               "render_timeout_ms": 0, "allow_network": false}),
    )
    .await;
    assert_eq!(answer["success"], true, "{answer}");
    let result = &answer["result"];
    assert_eq!(result["mime_type"], "image/png");
    let png = base64::engine::general_purpose::STANDARD
        .decode(result["image_base64"].as_str().unwrap())
        .unwrap();
    assert_eq!(png_dimensions(&png), Some((135, 45)));
    assert_eq!(
        (result["width"].clone(), result["height"].clone()),
        (json!(135), json!(45))
    );
    assert!(result["render_ms"].as_u64().is_some(), "{result}");

    let nothing = call(
        &service,
        "render.html2png",
        json!({"html": "<p>x</p>", "selector": "#gone"}),
    )
    .await;
    assert_eq!(nothing["success"], false);
    assert!(
        nothing["error"].as_str().unwrap().contains("\"#gone\""),
        "{nothing}"
    );
    let empty = call(&service, "render.html2png", json!({"html": "  "})).await;
    assert_eq!(empty["success"], false);
    assert!(
        empty["error"].as_str().unwrap().contains("`html` is empty"),
        "{empty}"
    );
}

#[tokio::test]
async fn without_a_browser_the_refusal_names_the_package_in_maibots_shape() {
    let (service, _) = service(&["render.html2png"]).await;
    service.set_render_config(RenderConfig {
        browser: Some("/nonexistent/chromium".into()),
        ..RenderConfig::default()
    });
    let answer = call(&service, "render.html2png", json!({"html": "<p>hi</p>"})).await;
    assert_eq!(answer["success"], false, "{answer}");
    let error = answer["error"].as_str().unwrap();
    assert!(
        error.starts_with("render.html2png failed: no headless Chromium found")
            && error.contains("apt-get install chromium"),
        "{error}"
    );
}
